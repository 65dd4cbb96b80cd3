"""Jupyter's display of device arrays (``_repr_html_``): what the array is
(shape, dtype, layout, size, where its memory is), and for a small array its
values, copied to the host."""

import numpy as np

from cuforge import _core

#: Arrays of at most this many elements show their values.
PREVIEW_ELEMENTS = 100


def _layout(a):
    if a.is_c_contiguous():
        return "C-contiguous"
    if a.is_f_contiguous():
        return "F-contiguous"
    return "strided"


def device_array_html(a) -> str:
    """The HTML Jupyter shows for device array ``a``."""
    import html  # here: only a notebook needs it
    rows = [
        ("shape", str(tuple(a.shape))),
        ("dtype", str(a.dtype)),
        ("layout", f"{_layout(a)}, strides {tuple(a.strides)}"),
        ("size", f"{a.size} elements, {a.nbytes} bytes"),
        ("memory", f"device {a.device_id}, {_core.backend()} backend"),
    ]
    body = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th><td style='text-align:left'>"
                   f"{html.escape(v)}</td></tr>" for k, v in rows)
    values = ""
    if a.size <= PREVIEW_ELEMENTS:
        try:
            text = np.array2string(a.copy_to_host(), threshold=PREVIEW_ELEMENTS)
        except Exception as e:  # noqa: BLE001 - a display must not raise: say why instead
            text = f"(values not shown: {type(e).__name__}: {e})"
        values = f"<pre>{html.escape(text)}</pre>"
    return f"<div><b>cuforge.cuda.DeviceNDArray</b><table>{body}</table>{values}</div>"


def install():
    _core.DeviceNDArray._repr_html_ = device_array_html
