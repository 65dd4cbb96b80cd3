"""DLPack capsules made by hand with ctypes, for what no library will export
(bfloat16, an unknown major version, a device type we do not have, a
byte_offset), and readers for the capsules we export.

The structs follow dlpack.h (version 1.1). A `Tensor` owns its struct, shape
and strides and counts how often its deleter runs; the capsule it makes has
the destructor the protocol asks of producers (it calls the deleter only
while the capsule is unconsumed), so "exactly once" can be checked whatever
path the consumer takes.
"""

import ctypes
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char_p,
    c_int32,
    c_int64,
    c_uint8,
    c_uint16,
    c_uint32,
    c_uint64,
    c_void_p,
)

kDLCPU, kDLCUDA, kDLCUDAHost, kDLOpenCL, kDLVulkan, kDLROCM, kDLCUDAManaged = 1, 2, 3, 4, 7, 10, 13
kDLInt, kDLUInt, kDLFloat, kDLOpaqueHandle, kDLBfloat, kDLComplex, kDLBool = 0, 1, 2, 3, 4, 5, 6

FLAG_READ_ONLY = 1 << 0
FLAG_IS_COPIED = 1 << 1

VERSIONED = b"dltensor_versioned"
LEGACY = b"dltensor"


class DLDevice(Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLTensor(Structure):
    _fields_ = [
        ("data", c_void_p),
        ("device", DLDevice),
        ("ndim", c_int32),
        ("dtype", DLDataType),
        ("shape", POINTER(c_int64)),
        ("strides", POINTER(c_int64)),
        ("byte_offset", c_uint64),
    ]


class DLPackVersion(Structure):
    _fields_ = [("major", c_uint32), ("minor", c_uint32)]


DELETER = CFUNCTYPE(None, c_void_p)


class DLManagedTensorVersioned(Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", c_void_p),
        ("deleter", DELETER),
        ("flags", c_uint64),
        ("dl_tensor", DLTensor),
    ]


class DLManagedTensor(Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p), ("deleter", DELETER)]


assert ctypes.sizeof(DLTensor) == 48
assert ctypes.sizeof(DLManagedTensor) == 64
assert ctypes.sizeof(DLManagedTensorVersioned) == 80

_api = ctypes.pythonapi
_capsule_new = ctypes.PYFUNCTYPE(ctypes.py_object, c_void_p, c_char_p, c_void_p)(("PyCapsule_New", _api))
_capsule_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, c_void_p, c_char_p)(("PyCapsule_IsValid", _api))
_capsule_get_pointer = ctypes.PYFUNCTYPE(c_void_p, c_void_p, c_char_p)(("PyCapsule_GetPointer", _api))
_capsule_get_name = ctypes.PYFUNCTYPE(c_char_p, ctypes.py_object)(("PyCapsule_GetName", _api))
_capsule_pointer_of = ctypes.PYFUNCTYPE(c_void_p, ctypes.py_object, c_char_p)(("PyCapsule_GetPointer", _api))


@CFUNCTYPE(None, c_void_p)
def _capsule_destructor(capsule):
    # The producer's side of the protocol: an unconsumed capsule frees its
    # tensor; a consumed one ("used_...") belongs to the consumer.
    if _capsule_is_valid(capsule, VERSIONED):
        ptr = _capsule_get_pointer(capsule, VERSIONED)
        ctypes.cast(ptr, POINTER(DLManagedTensorVersioned)).contents.deleter(ptr)
    elif _capsule_is_valid(capsule, LEGACY):
        ptr = _capsule_get_pointer(capsule, LEGACY)
        ctypes.cast(ptr, POINTER(DLManagedTensor)).contents.deleter(ptr)


def capsule_name(capsule):
    return _capsule_get_name(capsule).decode()


def versioned_tensor(capsule):
    """The DLManagedTensorVersioned inside an unconsumed versioned capsule
    (a view of the producer's struct: read it before the capsule goes)."""
    ptr = _capsule_pointer_of(capsule, VERSIONED)
    return ctypes.cast(ptr, POINTER(DLManagedTensorVersioned)).contents


def legacy_tensor(capsule):
    ptr = _capsule_pointer_of(capsule, LEGACY)
    return ctypes.cast(ptr, POINTER(DLManagedTensor)).contents


# Every Tensor made, kept for the life of the process: a consumer may call
# a deleter long after the test that made the tensor dropped it, and the
# struct and the ctypes thunk behind the deleter must still be there.
_made = []


class Tensor:
    """A hand-made managed tensor over `data` (an address)."""

    def __init__(
        self,
        data,
        shape,
        *,
        strides=None,
        dtype=(kDLFloat, 64, 1),
        device=(kDLCPU, 0),
        byte_offset=0,
        version=(1, 1),
        flags=0,
        legacy=False,
        ndim=None,
    ):
        self.deleted = 0
        self.legacy = legacy
        self._shape = (c_int64 * max(len(shape), 1))(*shape)
        self._strides = None if strides is None else (c_int64 * max(len(strides), 1))(*strides)
        self._deleter = DELETER(self._delete)
        t = DLTensor()
        t.data = data
        t.device = DLDevice(*device)
        t.ndim = len(shape) if ndim is None else ndim
        t.dtype = DLDataType(*dtype)
        t.shape = ctypes.cast(self._shape, POINTER(c_int64)) if shape else None
        t.strides = ctypes.cast(self._strides, POINTER(c_int64)) if strides is not None else None
        t.byte_offset = byte_offset
        if legacy:
            self.struct = DLManagedTensor(t, None, self._deleter)
        else:
            self.struct = DLManagedTensorVersioned(DLPackVersion(*version), None, self._deleter, flags, t)
        _made.append(self)

    def _delete(self, ptr):
        assert ptr == ctypes.addressof(self.struct)
        self.deleted += 1

    def capsule(self):
        name = LEGACY if self.legacy else VERSIONED
        return _capsule_new(ctypes.addressof(self.struct), name, ctypes.cast(_capsule_destructor, c_void_p))


class Producer:
    """A DLPack producer handing out a fixed capsule: for feeding a consumer
    that takes producers, not capsules (np.from_dlpack)."""

    def __init__(self, capsule, device=(kDLCPU, 0)):
        self.capsule = capsule
        self.device = device
        self.calls = []

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.calls.append(dict(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy))
        return self.capsule

    def __dlpack_device__(self):
        return self.device
