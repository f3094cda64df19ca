"""What v2_client_test.py's checks share: every model tensor dtype with its v2 datatype, struct
format and typed field, and sample values packed and unpacked as the protocol carries them.
"""

import struct


# Every model tensor dtype with a v2 datatype: NRT name -> (v2 name, struct format of one
# element, InferTensorContents field of its typed form or None when it travels only raw).
DTYPES = {
    "float32": ("FP32", "f", "fp32_contents"),
    "float16": ("FP16", "e", None),
    "bfloat16": ("BF16", "H", None),  # the 16-bit patterns: Python has no bfloat16
    "int8": ("INT8", "b", "int_contents"),
    "int16": ("INT16", "h", "int_contents"),
    "int32": ("INT32", "i", "int_contents"),
    "int64": ("INT64", "q", "int64_contents"),
    "uint8": ("UINT8", "B", "uint_contents"),
    "uint16": ("UINT16", "H", "uint_contents"),
    "uint32": ("UINT32", "I", "uint_contents"),
    "uint64": ("UINT64", "Q", "uint64_contents"),
}
IDENTITY_SHAPE = [2, 3]
CONTENT_FIELDS = ("bool_contents", "int_contents", "int64_contents", "uint_contents",
                  "uint64_contents", "fp32_contents", "fp64_contents", "bytes_contents")


# ---------------------------------------------------------------------------------------------
# Values and references.


def sample_values(dtype, count):
    """Values of `dtype` covering its extremes, `count` of them."""
    if dtype in ("float32", "float16"):
        base = [0.0, -1.5, 2.25, 65504.0 if dtype == "float16" else 3.0e38, -0.125, 1024.0]
    elif dtype == "bfloat16":
        base = [0x0000, 0xBFC0, 0x4010, 0x7F7F, 0xBE00, 0x4480]  # bit patterns
    else:
        fmt = DTYPES[dtype][1]
        bits = 8 * struct.calcsize(fmt)
        low, high = (0, 2**bits - 1) if fmt.isupper() else (-(2**(bits - 1)), 2**(bits - 1) - 1)
        base = [low, high, 0, 1, low + 1, high - 1]
    return [base[i % len(base)] for i in range(count)]


def pack(dtype, values):
    fmt = DTYPES[dtype][1]
    return struct.pack(f"<{len(values)}{fmt}", *values)


def unpack(fmt, data):
    return list(struct.unpack(f"<{len(data) // struct.calcsize(fmt)}{fmt}", data))


def filled_fields(contents):
    return [field for field in CONTENT_FIELDS if len(getattr(contents, field)) > 0]
