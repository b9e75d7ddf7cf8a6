/* engine._native.sums: torch's CPU sum of a short contiguous float array, in C.
 *
 * engine/ops/reduce_order.py reproduces the order in which torch's sum kernel adds (SumKernel.cpp:
 * 32-byte vectors, four accumulators, the tail before the lanes). For a short array (at least one
 * vector, fewer than 64) that order is one sequential pass, which numpy spells in about seven
 * calls; the MLP's losses are this size, so this does it in one. The numpy code (`_short`) stays
 * the reference and the fallback; tests/engine/ops/test_sum_order.py compares the two.
 *
 * Compiled with -ffp-contract=off; additions in C are never reassociated without -ffast-math, so
 * the order below is the order run.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Sum of v[0..n) in `_short`'s order, L = 32 / sizeof(T) lanes, L <= n < 64 * L:
 * acc[k] (k = 0..3) sums vectors 4r + k over rows r; the vectors left after the last full row
 * go into acc[0] before acc[1], acc[2], acc[3] are added to it, lane by lane; then the tail
 * elements (past the last whole vector), then the lanes, one after the other. */
#define SHORT_SUM(T, NAME)                                                                   \
    static T NAME(const T *v, Py_ssize_t n)                                                \
    {                                                                                        \
        enum { L = 32 / sizeof(T) };                                                         \
        const Py_ssize_t nv = n / L, n4 = nv / 4;                                            \
        T p[L];                                                                              \
        if (n4) {                                                                            \
            T acc[4 * L];                                                                    \
            for (int i = 0; i < 4 * L; i++)                                                  \
                acc[i] = v[i];                                                               \
            for (Py_ssize_t r = 1; r < n4; r++)                                              \
                for (int i = 0; i < 4 * L; i++)                                              \
                    acc[i] += v[r * 4 * L + i];                                              \
            for (int l = 0; l < L; l++) {                                                    \
                T s = acc[l];                                                                \
                for (Py_ssize_t q = 4 * n4; q < nv; q++)                                     \
                    s += v[q * L + l];                                                       \
                s += acc[L + l];                                                             \
                s += acc[2 * L + l];                                                         \
                s += acc[3 * L + l];                                                         \
                p[l] = s;                                                                    \
            }                                                                                \
        } else {                                                                             \
            for (int l = 0; l < L; l++) {                                                    \
                T s = v[l];                                                                  \
                for (Py_ssize_t q = 1; q < nv; q++)                                          \
                    s += v[q * L + l];                                                       \
                p[l] = s;                                                                    \
            }                                                                                \
        }                                                                                    \
        const Py_ssize_t tail = nv * L;                                                      \
        T s;                                                                                 \
        int l0 = 0;                                                                          \
        if (tail < n) {                                                                      \
            s = v[tail];                                                                     \
            for (Py_ssize_t i = tail + 1; i < n; i++)                                        \
                s += v[i];                                                                   \
        } else {                                                                             \
            s = p[0];                                                                        \
            l0 = 1;                                                                          \
        }                                                                                    \
        for (int l = l0; l < L; l++)                                                         \
            s += p[l];                                                                       \
        return s;                                                                            \
    }

SHORT_SUM(float, short_sum_f)
SHORT_SUM(double, short_sum_d)

static PyObject *short_sum(PyObject *Py_UNUSED(self), PyObject *obj)
{
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    const char *f = view.format ? view.format : "B";
    if (*f == '<' || *f == '=' || *f == '@')
        f++;
    const int single = f[0] == 'f' && f[1] == 0 && view.itemsize == 4;
    const int twice = f[0] == 'd' && f[1] == 0 && view.itemsize == 8;
    const Py_ssize_t n = view.itemsize ? view.len / view.itemsize : 0;
    const Py_ssize_t lanes = view.itemsize ? 32 / view.itemsize : 0;
    if (!(single || twice) || n < lanes || n >= 64 * lanes) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError,
                        "short_sum: a float32 or float64 buffer of 1 to 63 32-byte vectors");
        return NULL;
    }
    /* a float's sum is exact as a double: the caller turns it back into its dtype */
    const double s = single ? (double)short_sum_f((const float *)view.buf, n)
                            : short_sum_d((const double *)view.buf, n);
    PyBuffer_Release(&view);
    return PyFloat_FromDouble(s);
}

static PyMethodDef methods[] = {
    {"short_sum", short_sum, METH_O,
     "short_sum(buf): torch's sum of a contiguous float32/float64 buffer of 1 to 63 vectors."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "engine._native.sums",
    "torch's CPU sum of a short float array, in C.", -1, methods,
};

PyMODINIT_FUNC PyInit_sums(void) { return PyModule_Create(&module); }
