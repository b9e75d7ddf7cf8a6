/* engine._native.fill: PyTorch's CPU normal fill (NormalFill16) and the uniforms feeding it, in C.
 *
 * engine/random.py reproduces the same numbers in numpy (its fallback when this module did not
 * build, or when GRADSTEP_NATIVE=0); this module computes them with the very operations torch
 * runs, which is ~10x faster than emulating them array pass by array pass:
 *
 *  - fill16(buf, mean, std, avx2): rows of 16 uniforms (a contiguous float32 or float64 buffer)
 *    become normals in place. avx2=True (float32 only) is torch's AVX2/AVX512 build: avx_mathfun's
 *    log256_ps / sincos256_ps with the multiply-adds GCC contracts into FMAs in torch's build,
 *    written out here as _mm256_fmadd_ps (this file is compiled with -ffp-contract=off, so the
 *    compiler adds none of its own). avx2=False is torch's scalar template (its
 *    ATEN_CPU_CAPABILITY=default build, and every double fill): the C library's logf/sinf/cosf
 *    (log/sin/cos), the same calls torch makes, so the same results by construction.
 *  - fma(buf, b, c): buf = fma(buf, b, c) in place (uniform_'s `x * (to - from) + from`, the
 *    serial normals' `x * std + mean`): fmaf / fma, rounded once.
 *  - uniform(capsule, buf): fills a float32 buffer with 24-bit uniforms, a float64 one with
 *    53-bit uniforms (random64: the first 32-bit draw the high half), drawn from a numpy
 *    BitGenerator's C interface (its `capsule`): at::uniform_real_distribution on mt19937.
 *
 * log256 and sincos256 below are ported from avx_mathfun.h as shipped in PyTorch
 * (aten/src/ATen/native/cpu/avx_mathfun.h):
 *
 *   AVX implementation of sin, cos, sincos, exp and log
 *   Based on "sse_mathfun.h", by Julien Pommier, http://gruntthepeon.free.fr/ssemath/
 *   Copyright (C) 2012 Giovanni Garberoglio, Interdisciplinary Laboratory for Computational
 *   Science (LISC), Fondazione Bruno Kessler and University of Trento, Trento (Italy)
 *
 *   This software is provided 'as-is', without any express or implied warranty. In no event will
 *   the authors be held liable for any damages arising from the use of this software.
 *   Permission is granted to anyone to use this software for any purpose, including commercial
 *   applications, and to alter it and redistribute it freely, subject to the following
 *   restrictions:
 *   1. The origin of this software must not be misrepresented; you must not claim that you
 *      wrote the original software. If you use this software in a product, an acknowledgment in
 *      the product documentation would be appreciated but is not required.
 *   2. Altered source versions must be plainly marked as such, and must not be misrepresented as
 *      being the original software.
 *   3. This notice may not be removed or altered from any source distribution.
 *   (this is the zlib license)
 *
 * Altered: only the log and sincos the normal fill calls, for arguments in (0, 1] and [0, 2*pi),
 * with GCC's FMA contractions written out.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_AVX2_PATH 1
#include <immintrin.h>
#else
#define HAVE_AVX2_PATH 0
#endif

/* c10::pi<double> doubled, as torch's `2.0f * c10::pi<double>` */
static const double TWO_PI = 2.0 * 3.14159265358979323846;

/* -- the scalar template: NormalFill16<opmath_t>::operator() ----------------------------------- */

/* One template for float (logf, ..., fmaf: torch's scalar build) and double (log, ..., fma: every
 * build): u1 = 1 - u, radius = sqrt(-2 log u1), theta = (scalar_t)(2 pi * u2) in double. */
#define FILL16_SCALAR(NAME, T, SQRT, LOG, COS, SIN, FMA)                                           \
    static void NAME(T *d, Py_ssize_t rows, T mean, T std)                                        \
    {                                                                                              \
        for (Py_ssize_t r = 0; r < rows; r++, d += 16) {                                           \
            for (int j = 0; j < 8; j++) {                                                          \
                const T u1 = (T)1 - d[j];                                                          \
                const T u2 = d[j + 8];                                                             \
                const T radius = SQRT((T)-2 * LOG(u1));                                            \
                const T theta = (T)(TWO_PI * (double)u2);                                          \
                d[j] = FMA(radius * COS(theta), std, mean);                                        \
                d[j + 8] = FMA(radius * SIN(theta), std, mean);                                    \
            }                                                                                      \
        }                                                                                          \
    }

FILL16_SCALAR(fill16_f32_scalar, float, sqrtf, logf, cosf, sinf, fmaf)
FILL16_SCALAR(fill16_f64, double, sqrt, log, cos, sin, fma)

/* -- the AVX2 specialisation: NormalFill16<float> with avx_mathfun ----------------------------- */

#if HAVE_AVX2_PATH
#define AVX2 __attribute__((target("avx2,fma")))
#define PS(v) _mm256_set1_ps((float)(v)) /* a double literal rounded to float, as the header's */

/* log256_ps of x in (0, 1] */
AVX2 static inline __m256 log256(__m256 x)
{
    const __m256 one = PS(1.0);
    const __m256 invalid = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LE_OS);
    x = _mm256_max_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(0x00800000)));
    __m256i imm0 = _mm256_srli_epi32(_mm256_castps_si256(x), 23);
    x = _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(~0x7f800000)));
    x = _mm256_or_ps(x, PS(0.5));
    imm0 = _mm256_sub_epi32(imm0, _mm256_set1_epi32(0x7f));
    __m256 e = _mm256_add_ps(_mm256_cvtepi32_ps(imm0), one);

    const __m256 mask = _mm256_cmp_ps(x, PS(0.707106781186547524), _CMP_LT_OS);
    __m256 tmp = _mm256_and_ps(x, mask);
    x = _mm256_sub_ps(x, one);
    e = _mm256_sub_ps(e, _mm256_and_ps(one, mask));
    x = _mm256_add_ps(x, tmp);
    const __m256 z = _mm256_mul_ps(x, x);

    /* Horner's rule: every mul-then-add one FMA, as GCC contracts them */
    __m256 y = _mm256_fmadd_ps(PS(7.0376836292E-2), x, PS(-1.1514610310E-1));
    y = _mm256_fmadd_ps(y, x, PS(1.1676998740E-1));
    y = _mm256_fmadd_ps(y, x, PS(-1.2420140846E-1));
    y = _mm256_fmadd_ps(y, x, PS(1.4249322787E-1));
    y = _mm256_fmadd_ps(y, x, PS(-1.6668057665E-1));
    y = _mm256_fmadd_ps(y, x, PS(2.0000714765E-1));
    y = _mm256_fmadd_ps(y, x, PS(-2.4999993993E-1));
    y = _mm256_fmadd_ps(y, x, PS(3.3333331174E-1));
    y = _mm256_mul_ps(y, x);
    y = _mm256_fmadd_ps(y, z, _mm256_mul_ps(e, PS(-2.12194440e-4)));
    y = _mm256_sub_ps(y, _mm256_mul_ps(z, PS(0.5)));
    x = _mm256_add_ps(x, y);
    x = _mm256_add_ps(x, _mm256_mul_ps(e, PS(0.693359375)));
    return _mm256_or_ps(x, invalid);
}

/* sincos256_ps of x in [0, 2*pi) (so no sign to take off first) */
AVX2 static inline void sincos256(__m256 x, __m256 *s, __m256 *c)
{
    __m256i j = _mm256_cvttps_epi32(_mm256_mul_ps(x, PS(1.27323954473516)));
    j = _mm256_and_si256(_mm256_add_epi32(j, _mm256_set1_epi32(1)), _mm256_set1_epi32(~1));
    const __m256 y = _mm256_cvtepi32_ps(j);

    /* y * DP1 and y * DP2 are exact for these y; GCC fuses the third */
    x = _mm256_add_ps(x, _mm256_mul_ps(y, PS(-0.78515625)));
    x = _mm256_add_ps(x, _mm256_mul_ps(y, PS(-2.4187564849853515625e-4)));
    x = _mm256_fmadd_ps(y, PS(-3.77489497744594108e-8), x);
    const __m256 z = _mm256_mul_ps(x, x);

    __m256 yc = _mm256_fmadd_ps(PS(2.443315711809948E-005), z, PS(-1.388731625493765E-003));
    yc = _mm256_fmadd_ps(yc, z, PS(4.166664568298827E-002));
    yc = _mm256_mul_ps(yc, z);
    yc = _mm256_fmsub_ps(yc, z, _mm256_mul_ps(z, PS(0.5)));
    yc = _mm256_add_ps(yc, PS(1.0));

    __m256 ys = _mm256_fmadd_ps(PS(-1.9515295891E-4), z, PS(8.3321608736E-3));
    ys = _mm256_fmadd_ps(ys, z, PS(-1.6666654611E-1));
    ys = _mm256_mul_ps(ys, z);
    ys = _mm256_fmadd_ps(ys, x, x);

    /* j & 2: the sine takes the cosine polynomial and the cosine the sine's */
    const __m256i two = _mm256_set1_epi32(2);
    const __m256 swap = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(j, two), two));
    const __m256 sn = _mm256_blendv_ps(ys, yc, swap);
    const __m256 cs = _mm256_blendv_ps(yc, ys, swap);
    /* the sign flips: the sine's for j & 4, the cosine's for (j + 2) & 4 */
    const __m256i four = _mm256_set1_epi32(4);
    const __m256i sign_sin = _mm256_slli_epi32(_mm256_and_si256(j, four), 29);
    const __m256i j2 = _mm256_add_epi32(j, two);
    const __m256i sign_cos = _mm256_slli_epi32(_mm256_and_si256(j2, four), 29);
    *s = _mm256_xor_ps(sn, _mm256_castsi256_ps(sign_sin));
    *c = _mm256_xor_ps(cs, _mm256_castsi256_ps(sign_cos));
}

AVX2 static void fill16_f32_avx2(float *d, Py_ssize_t rows, float mean, float std)
{
    const __m256 one = PS(1.0), minus_two = PS(-2.0), two_pi = PS(TWO_PI);
    const __m256 meanv = _mm256_set1_ps(mean), stdv = _mm256_set1_ps(std);
    for (Py_ssize_t r = 0; r < rows; r++, d += 16) {
        const __m256 u1 = _mm256_sub_ps(one, _mm256_loadu_ps(d));
        const __m256 u2 = _mm256_loadu_ps(d + 8);
        const __m256 radius = _mm256_sqrt_ps(_mm256_mul_ps(minus_two, log256(u1)));
        __m256 sintheta, costheta;
        sincos256(_mm256_mul_ps(two_pi, u2), &sintheta, &costheta);
        _mm256_storeu_ps(d, _mm256_fmadd_ps(_mm256_mul_ps(radius, costheta), stdv, meanv));
        _mm256_storeu_ps(d + 8, _mm256_fmadd_ps(_mm256_mul_ps(radius, sintheta), stdv, meanv));
    }
}

static int cpu_has_avx2(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
static int cpu_has_avx2(void) { return 0; }
#endif

/* -- the Python functions --------------------------------------------------------------------- */

/* A writable C-contiguous buffer of float32 ('f') or float64 ('d'): its item size, or 0 with an
 * exception set. */
static int float_buffer(PyObject *obj, Py_buffer *view)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return 0;
    const char *f = view->format ? view->format : "B";
    if (*f == '<' || *f == '=' || *f == '@')
        f++;
    if ((f[0] == 'f' && f[1] == 0 && view->itemsize == 4) ||
        (f[0] == 'd' && f[1] == 0 && view->itemsize == 8))
        return (int)view->itemsize;
    PyErr_Format(PyExc_TypeError, "expected a float32 or float64 buffer, got format '%s'",
                 view->format ? view->format : "B");
    PyBuffer_Release(view);
    return 0;
}

static int has_avx2;

static PyObject *fill16(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *obj;
    double mean, std;
    int avx2;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "Oddp:fill16", &obj, &mean, &std, &avx2))
        return NULL;
    const int size = float_buffer(obj, &view);
    if (!size)
        return NULL;
    const Py_ssize_t n = view.len / size;
    if (n % 16) {
        PyBuffer_Release(&view);
        return PyErr_Format(PyExc_ValueError, "fill16 needs rows of 16 values, got %zd", n);
    }
    if (avx2 && (size != 4 || !has_avx2)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, size != 4 ? "the AVX2 fill is float32 only"
                                                    : "this CPU (or build) has no AVX2 fill");
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    if (size == 8)
        fill16_f64((double *)view.buf, n / 16, mean, std);
#if HAVE_AVX2_PATH
    else if (avx2)
        fill16_f32_avx2((float *)view.buf, n / 16, (float)mean, (float)std);
#endif
    else
        fill16_f32_scalar((float *)view.buf, n / 16, (float)mean, (float)std);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

static PyObject *fma_(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *obj;
    double b, c;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "Odd:fma", &obj, &b, &c))
        return NULL;
    const int size = float_buffer(obj, &view);
    if (!size)
        return NULL;
    const Py_ssize_t n = view.len / size;
    Py_BEGIN_ALLOW_THREADS
    if (size == 4) {
        float *d = (float *)view.buf;
        const float bf = (float)b, cf = (float)c;
        for (Py_ssize_t i = 0; i < n; i++)
            d[i] = fmaf(d[i], bf, cf);
    } else {
        double *d = (double *)view.buf;
        for (Py_ssize_t i = 0; i < n; i++)
            d[i] = fma(d[i], b, c);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* numpy's bitgen_t (numpy/random/bitgen.h, its public C interface, behind BitGenerator.capsule) */
typedef struct {
    void *state;
    uint64_t (*next_uint64)(void *st);
    uint32_t (*next_uint32)(void *st);
    double (*next_double)(void *st);
    uint64_t (*next_raw)(void *st);
} bitgen_t;

static PyObject *uniform(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *capsule, *obj;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "OO:uniform", &capsule, &obj))
        return NULL;
    bitgen_t *bg = (bitgen_t *)PyCapsule_GetPointer(capsule, "BitGenerator");
    if (bg == NULL)
        return NULL;
    const int size = float_buffer(obj, &view);
    if (!size)
        return NULL;
    const Py_ssize_t n = view.len / size;
    /* the caller holds the BitGenerator's lock; the GIL stays held, as numpy's own draws hold
     * the lock */
    if (size == 4) {
        float *d = (float *)view.buf;
        for (Py_ssize_t i = 0; i < n; i++)  /* (random() & (2**24 - 1)) * 2**-24, exact */
            d[i] = (float)(int32_t)(bg->next_uint32(bg->state) & 0xFFFFFFu) * (1.0f / 16777216.0f);
    } else {
        double *d = (double *)view.buf;
        for (Py_ssize_t i = 0; i < n; i++) {
            const uint64_t hi = bg->next_uint32(bg->state);
            const uint64_t lo = bg->next_uint32(bg->state);
            const uint64_t bits = ((hi << 32) | lo) & ((UINT64_C(1) << 53) - 1);
            d[i] = (double)bits * (1.0 / 9007199254740992.0);
        }
    }
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"fill16", fill16, METH_VARARGS,
     "fill16(buf, mean, std, avx2): rows of 16 uniforms in buf become torch's normals, in place."},
    {"fma", fma_, METH_VARARGS,
     "fma(buf, b, c): buf = fma(buf, b, c) elementwise, in place (fmaf for a float32 buffer)."},
    {"uniform", uniform, METH_VARARGS,
     "uniform(capsule, buf): buf filled with torch's [0, 1) uniforms from a numpy BitGenerator."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "engine._native.fill",
    "PyTorch's CPU normal fill and uniforms, in C.", -1, methods,
};

PyMODINIT_FUNC PyInit_fill(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    has_avx2 = cpu_has_avx2();
    if (PyModule_AddObject(m, "AVX2", PyBool_FromLong(has_avx2)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
