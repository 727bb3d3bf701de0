"""What ``import cython`` gives fce's modules written in Cython's pure Python mode where Cython is not installed.

Such a module (:data:`fce._accel.PURE_PYTHON_MODULES`) is plain Python that ``setup.py`` also compiles with Cython
where the install has a C compiler. Its C types are written as annotations of local variables (``i:
cython.Py_ssize_t``), which Python never evaluates; at run time it reads only :data:`compiled`, to say which of the
two runs. Cython itself installs a fuller stand-in (its ``cython`` module) that the modules use when it is present.
"""

#: False: this is the interpreted module (a compiled one sees Cython's constant True instead).
compiled = False


def cclass(cls: type) -> type:
    """``@cython.cclass``: an extension type where compiled, the class as it is otherwise."""
    return cls


def ccall(function: object) -> object:
    """``@cython.ccall``: a method C code calls directly where compiled, the function as it is otherwise."""
    return function


def cfunc(function: object) -> object:
    """``@cython.cfunc``: a C function where compiled, the function as it is otherwise."""
    return function


def inline(function: object) -> object:
    """``@cython.inline``: inlined where compiled, the function as it is otherwise."""
    return function


def returns(_type: object) -> object:
    """``@cython.returns(type)``: a C return type where compiled, nothing otherwise."""
    return lambda function: function


def cast(_type: object, value: object, typecheck: bool = True) -> object:
    """``cython.cast(type, value)``: a C cast where compiled, the value as it is otherwise."""
    return value


def locals(**_types: object) -> object:  # noqa: A001 (Cython's name)
    """``@cython.locals(name=type)``: typed local variables where compiled, nothing otherwise."""
    return lambda function: function


def declare(*_args: object, **_kwargs: object) -> None:
    """``cython.declare(type)``: a C field or variable where compiled, nothing otherwise."""
    return None


class _CType:
    """A C type named in a declaration (only the compiler reads it); ``long[:]`` names a memoryview of them."""

    __slots__ = ()

    def __getitem__(self, _index: object) -> "_CType":
        return self


#: Types named in declarations (placeholders: only the compiler reads them).
Py_ssize_t = Py_UCS4 = bint = uchar = longlong = ulonglong = _CType()
int = _CType()  # noqa: A001 (Cython's name)
