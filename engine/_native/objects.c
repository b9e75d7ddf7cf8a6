/* One call that makes an object as a copy of a prototype: engine/tensor.py and
 * engine/ops/dispatch.py make a Tensor, its version counter and a graph node per op this way.
 *
 * In Python a new instance of a class with __slots__ costs object.__new__ (a call through
 * tp_new_wrapper with an argument tuple) and then one attribute write per slot: ~16 writes for a
 * node, 13 for a tensor, most of them the same first values every time. ``clone(proto)`` allocates
 * an object of proto's type and copies proto's slot values (new references), leaving the
 * __weakref__ list empty; the caller then writes only the slots that differ. Which values a new
 * object starts with stays written in Python, once, in the prototype.
 *
 * Only for classes whose every field is a slot holding an object: heap types all the way down to
 * ``object``, with no __dict__ and no variable size (``cloneable`` says whether a class is one;
 * ``clone`` refuses the others with TypeError).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

static int
is_cloneable(PyTypeObject *tp)
{
    if (tp->tp_itemsize != 0 || tp->tp_dictoffset != 0)
        return 0;
    if ((tp->tp_basicsize - (Py_ssize_t)sizeof(PyObject)) % (Py_ssize_t)sizeof(PyObject *))
        return 0;
    /* every class above object is a heap type: made by a class statement, its fields are
     * slots (a C extension's PyType_FromSpec type could add others: the engine passes none) */
    for (PyTypeObject *t = tp; t != &PyBaseObject_Type; t = t->tp_base) {
        if (t == NULL || !(t->tp_flags & Py_TPFLAGS_HEAPTYPE))
            return 0;
    }
    return 1;
}

static PyObject *
objects_cloneable(PyObject *module, PyObject *cls)
{
    if (!PyType_Check(cls)) {
        PyErr_SetString(PyExc_TypeError, "cloneable() takes a class");
        return NULL;
    }
    return PyBool_FromLong(is_cloneable((PyTypeObject *)cls));
}

static PyObject *
objects_clone(PyObject *module, PyObject *proto)
{
    PyTypeObject *tp = Py_TYPE(proto);
    if (!is_cloneable(tp)) { /* a few pointer reads: a class is one or two below object */
        PyErr_Format(PyExc_TypeError, "cannot clone a '%.100s' object", tp->tp_name);
        return NULL;
    }
    PyObject *obj = tp->tp_alloc(tp, 0);
    if (obj == NULL)
        return NULL;
    Py_ssize_t end = tp->tp_basicsize, weak = tp->tp_weaklistoffset;
    for (Py_ssize_t off = sizeof(PyObject); off < end; off += sizeof(PyObject *)) {
        if (off == weak)
            continue; /* tp_alloc zeroed it: no weak references yet */
        PyObject *v = *(PyObject **)((char *)proto + off);
        Py_XINCREF(v);
        *(PyObject **)((char *)obj + off) = v;
    }
    return obj;
}

/* slot_offset(cls, name): where the slot ``name`` of ``cls`` sits in its objects (CPython lays
 * slots out in the order of their sorted names, not as __slots__ lists them). */
static PyObject *
objects_slot_offset(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyType_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "slot_offset(cls, name)");
        return NULL;
    }
    PyObject *descr = PyObject_GetAttr(args[0], args[1]);
    if (descr == NULL)
        return NULL;
    if (!Py_IS_TYPE(descr, &PyMemberDescr_Type)
            || ((PyMemberDescrObject *)descr)->d_member->type != T_OBJECT_EX) {
        Py_DECREF(descr);
        PyErr_SetString(PyExc_TypeError, "slot_offset: not a slot holding an object");
        return NULL;
    }
    Py_ssize_t off = ((PyMemberDescrObject *)descr)->d_member->offset;
    Py_DECREF(descr);
    return PyLong_FromSsize_t(off);
}

static int
is_slot(PyTypeObject *tp, Py_ssize_t off)
{
    return off >= (Py_ssize_t)sizeof(PyObject) && off < tp->tp_basicsize
        && (off - (Py_ssize_t)sizeof(PyObject)) % (Py_ssize_t)sizeof(PyObject *) == 0
        && off != tp->tp_weaklistoffset;
}

/* clone_holding(proto, counter, value_at, counter_at, value): clone(proto) holding ``value`` in
 * the slot at offset ``value_at`` and a clone of ``counter`` in the one at ``counter_at``:
 * Tensor._wrap(array) in one C call (engine/tensor.py binds the first four arguments). */
static PyObject *
objects_clone_holding(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError,
                        "clone_holding(proto, counter, value_at, counter_at, value)");
        return NULL;
    }
    PyObject *proto = args[0];
    PyTypeObject *tp = Py_TYPE(proto);
    Py_ssize_t value_at = PyLong_AsSsize_t(args[2]), counter_at = PyLong_AsSsize_t(args[3]);
    if ((value_at == -1 || counter_at == -1) && PyErr_Occurred())
        return NULL;
    if (!is_slot(tp, value_at) || !is_slot(tp, counter_at) || value_at == counter_at) {
        PyErr_Format(PyExc_ValueError, "clone_holding: not two slots of '%.100s'", tp->tp_name);
        return NULL;
    }
    PyObject *counter = objects_clone(module, args[1]);
    if (counter == NULL)
        return NULL;
    PyObject *obj = objects_clone(module, proto);
    if (obj == NULL) {
        Py_DECREF(counter);
        return NULL;
    }
    Py_XSETREF(*(PyObject **)((char *)obj + value_at), Py_NewRef(args[4]));
    Py_XSETREF(*(PyObject **)((char *)obj + counter_at), counter);
    return obj;
}

static PyMethodDef objects_methods[] = {
    {"clone_holding", (PyCFunction)(void (*)(void))objects_clone_holding, METH_FASTCALL,
     "clone_holding(proto, counter, value_at, counter_at, value): clone(proto) holding value "
     "and a clone of counter in the slots at those offsets."},
    {"slot_offset", (PyCFunction)(void (*)(void))objects_slot_offset, METH_FASTCALL,
     "slot_offset(cls, name): the offset of the slot name in objects of cls."},
    {"clone", objects_clone, METH_O,
     "clone(proto): a new object of proto's class holding proto's slot values."},
    {"cloneable", objects_cloneable, METH_O,
     "cloneable(cls): whether clone() can copy instances of cls (slots only, no __dict__)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef objects_module = {
    PyModuleDef_HEAD_INIT, "objects", "Objects made as copies of a prototype.", -1,
    objects_methods,
};

PyMODINIT_FUNC
PyInit_objects(void)
{
    return PyModule_Create(&objects_module);
}
