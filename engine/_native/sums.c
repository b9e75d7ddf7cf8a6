/* engine._native.sums: one call of torch's CPU sum kernel on a contiguous float array, in C
 * (and numpy's own sum of a gradient's leading dimensions, `column_sum`, at the end).
 *
 * engine/ops/reduce_order.py reproduces the order in which torch's sum kernel adds (SumKernel.cpp:
 * `vectorized_inner_sum` over 32-byte vectors, `row_sum`'s four partial sums, `multi_row_sum`'s
 * 4-level cascade, the tail before the lanes) with a few dozen numpy calls per reduction. For a
 * contiguous 1-D range (a full sum, a mean, one thread's part of one) this runs the same loops in
 * one call: ~0.1-2 us where the numpy calls take 6-20 us. The numpy code (`_loop_sum(...,
 * native=False)`) stays the reference and the fallback; tests/engine/ops/test_sum_order.py
 * compares the two on every size up to 5,000 and past the thread split, and both with torch.
 *
 * Compiled with -ffp-contract=off; additions in C are never reassociated without -ffast-math, so
 * the order below is the order run.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define LEVELS 4 /* multi_row_sum's num_levels */
#define MAX_COLS 32 /* 4 vectors of 8 floats: the widest rows the cascade sums */

/* For T in float, double: SEQ sums rows [0, n) of a (n, c) block (row stride c) strictly in
 * order, zeros when n is 0 (`_seq`); CASCADE is `_cascade` (multi_row_sum) over its rows;
 * ROW_SUM is `_row_sum` (row_sum: the rows as (-1, 4) rows of 4 vectors, the rows left over added
 * to the first partial, then the other three); LOOP_SUM is one loop call on v[0, n): `_inner`
 * (vectorized_inner_sum) when there is a whole vector, else `_row_sum` of the elements. */
#define KERNELS(T, SUF)                                                                      \
    static void seq_##SUF(const T *a, Py_ssize_t n, int c, T *out)                          \
    {                                                                                        \
        if (n == 0) {                                                                        \
            for (int k = 0; k < c; k++)                                                      \
                out[k] = 0;                                                                  \
            return;                                                                          \
        }                                                                                    \
        for (int k = 0; k < c; k++)                                                          \
            out[k] = a[k];                                                                   \
        for (Py_ssize_t r = 1; r < n; r++)                                                   \
            for (int k = 0; k < c; k++)                                                      \
                out[k] += a[r * c + k];                                                      \
    }                                                                                        \
                                                                                             \
    static int cascade_##SUF(const T *rows, Py_ssize_t size, int c, T *out)                 \
    {                                                                                        \
        int bits = 0;                                                                        \
        for (Py_ssize_t m = size - 1; m > 0; m >>= 1)                                        \
            bits++;                                                                          \
        const Py_ssize_t step = (Py_ssize_t)1 << (bits / LEVELS > 4 ? bits / LEVELS : 4);    \
        if (size < step) {                                                                   \
            seq_##SUF(rows, size, c, out);                                                   \
            return 0;                                                                        \
        }                                                                                    \
        T total[MAX_COLS], s[MAX_COLS];                                                      \
        const Py_ssize_t full = size / step * step;                                          \
        seq_##SUF(rows + full * c, size - full, c, total);                                   \
        /* each level's finished sums, written over the level below once it is read */      \
        T *level = PyMem_Malloc((size_t)(size / step) * c * sizeof(T));                      \
        if (level == NULL) {                                                                 \
            PyErr_NoMemory();                                                                \
            return -1;                                                                       \
        }                                                                                    \
        const T *below = rows;                                                               \
        Py_ssize_t n = size;                                                                 \
        for (int depth = 1; depth < LEVELS; depth++) {                                       \
            const Py_ssize_t groups = n / step;                                              \
            for (Py_ssize_t g = 0; g < groups; g++) {                                        \
                seq_##SUF(below + g * step * c, step, c, s);                                 \
                memcpy(level + g * c, s, c * sizeof(T));                                     \
            }                                                                                \
            below = level;                                                                   \
            n = groups;                                                                      \
            if (depth == LEVELS - 1 || n < step) { /* the top level, or the last non-empty */ \
                seq_##SUF(level, n, c, s);                                                   \
                for (int k = 0; k < c; k++)                                                  \
                    out[k] = total[k] + s[k];                                                \
                break;                                                                       \
            }                                                                                \
            const Py_ssize_t done = n / step * step;                                         \
            seq_##SUF(level + done * c, n - done, c, s); /* this level's unfinished sum */   \
            for (int k = 0; k < c; k++)                                                      \
                total[k] = total[k] + s[k];                                                  \
        }                                                                                    \
        PyMem_Free(level);                                                                   \
        return 0;                                                                            \
    }                                                                                        \
                                                                                             \
    static int row_sum_##SUF(const T *x, Py_ssize_t size, int w, T *out)                    \
    {                                                                                        \
        const Py_ssize_t n4 = size / 4;                                                      \
        if (!n4) {                                                                           \
            seq_##SUF(x, size, w, out);                                                      \
            return 0;                                                                        \
        }                                                                                    \
        T parts[MAX_COLS];                                                                   \
        if (cascade_##SUF(x, n4, 4 * w, parts) < 0)                                          \
            return -1;                                                                       \
        for (Py_ssize_t r = 4 * n4; r < size; r++)                                           \
            for (int k = 0; k < w; k++)                                                      \
                parts[k] += x[r * w + k];                                                    \
        for (int k = 0; k < w; k++)                                                          \
            out[k] = ((parts[k] + parts[w + k]) + parts[2 * w + k]) + parts[3 * w + k];      \
        return 0;                                                                            \
    }                                                                                        \
                                                                                             \
    static int loop_sum_##SUF(const T *v, Py_ssize_t n, T *out)                              \
    {                                                                                        \
        enum { L = 32 / sizeof(T) };                                                         \
        if (n < L)                                                                           \
            return row_sum_##SUF(v, n, 1, out);                                              \
        const Py_ssize_t nv = n / L;                                                         \
        T lanes[L];                                                                          \
        if (row_sum_##SUF(v, nv, L, lanes) < 0)                                              \
            return -1;                                                                       \
        /* the elements past the last whole vector, then the lanes, one after the other */   \
        Py_ssize_t i = nv * L;                                                               \
        T s;                                                                                 \
        int l = 0;                                                                           \
        if (i < n)                                                                           \
            s = v[i++];                                                                      \
        else                                                                                 \
            s = lanes[l++];                                                                  \
        for (; i < n; i++)                                                                   \
            s += v[i];                                                                       \
        for (; l < L; l++)                                                                   \
            s += lanes[l];                                                                   \
        *out = s;                                                                            \
        return 0;                                                                            \
    }

KERNELS(float, f)
KERNELS(double, d)

static PyObject *loop_sum(PyObject *Py_UNUSED(self), PyObject *obj)
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
    if (!(single || twice) || n < 1) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError,
                        "loop_sum: a non-empty contiguous float32 or float64 buffer");
        return NULL;
    }
    /* a float's sum is exact as a double: the caller turns it back into its dtype */
    double s;
    int failed;
    if (single) {
        float r = 0;
        failed = loop_sum_f((const float *)view.buf, n, &r);
        s = r;
    } else {
        failed = loop_sum_d((const double *)view.buf, n, &s);
    }
    PyBuffer_Release(&view);
    return failed ? NULL : PyFloat_FromDouble(s);
}

/* numpy's sum over the leading dimensions of a C-contiguous array into its trailing ones (a
 * bias's gradient: engine/autograd/node.py `_reduce_to`): numpy adds such rows one after the
 * other into a result that starts at +0.0 (its identity: a column of -0.0 sums to +0.0), each
 * column on its own. numpy's ufunc machinery costs ~20x the sum of a (64, 16) gradient. */
#define COLUMN_SUM(T, SUF)                                                                   \
    static void column_sum_##SUF(const T *a, Py_ssize_t rows, Py_ssize_t c, T *out)          \
    {                                                                                        \
        for (Py_ssize_t k = 0; k < c; k++)                                                   \
            out[k] = 0;                                                                      \
        for (Py_ssize_t r = 0; r < rows; r++)                                                \
            for (Py_ssize_t k = 0; k < c; k++)                                               \
                out[k] += a[r * c + k];                                                      \
    }

COLUMN_SUM(float, f)
COLUMN_SUM(double, d)

static int float_kind(const Py_buffer *view)
{
    const char *f = view->format ? view->format : "B";
    if (*f == '<' || *f == '=' || *f == '@')
        f++;
    if (f[0] == 'f' && f[1] == 0 && view->itemsize == 4)
        return 4;
    if (f[0] == 'd' && f[1] == 0 && view->itemsize == 8)
        return 8;
    return 0;
}

static PyObject *column_sum(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "column_sum(a, out) takes two buffers");
        return NULL;
    }
    Py_buffer a, out;
    if (PyObject_GetBuffer(args[0], &a, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[1], &out, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE)
            < 0) {
        PyBuffer_Release(&a);
        return NULL;
    }
    const int kind = float_kind(&a);
    const Py_ssize_t n = kind ? a.len / kind : 0, c = kind ? out.len / kind : 0;
    if (!kind || float_kind(&out) != kind || c < 1 || n % c) {
        PyBuffer_Release(&a);
        PyBuffer_Release(&out);
        PyErr_SetString(PyExc_ValueError, "column_sum: contiguous float32 or float64 buffers, "
                                          "out's length dividing a's");
        return NULL;
    }
    if (kind == 4)
        column_sum_f((const float *)a.buf, n / c, c, (float *)out.buf);
    else
        column_sum_d((const double *)a.buf, n / c, c, (double *)out.buf);
    PyBuffer_Release(&a);
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"loop_sum", loop_sum, METH_O,
     "loop_sum(buf): one call of torch's sum kernel on a contiguous float32/float64 buffer."},
    {"column_sum", (PyCFunction)(void (*)(void))column_sum, METH_FASTCALL,
     "column_sum(a, out): out[k] = the sum of a's rows of len(out) elements, numpy's order."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "engine._native.sums",
    "One call of torch's CPU sum kernel on a contiguous float array, in C.", -1, methods,
};

PyMODINIT_FUNC PyInit_sums(void) { return PyModule_Create(&module); }
