#!/usr/bin/env python3
"""Writes the .npy files tst_npy reads, byte for byte as NumPy's numpy.lib.format writes them
(dict keys sorted, the spare "growth" spaces after the shape that recent NumPy adds, padding to
64 bytes, '\\n' at the end). NumPy itself is not needed, so the files can be remade anywhere."""
import struct

GROWTH_AXIS_MAX_DIGITS = 21


def npy(descr, shape, data, version=(1, 0), growth=True):
    header = "{'descr': %r, 'fortran_order': False, 'shape': %r, }" % (descr, shape)
    if growth and len(shape) > 0:
        header += " " * (GROWTH_AXIS_MAX_DIGITS - len(repr(shape[0])))
    length_format = "<H" if version == (1, 0) else "<I"
    prefix_len = 8 + struct.calcsize(length_format)
    hlen = len(header) + 1
    pad = 64 - (prefix_len + hlen) % 64
    header = header + " " * pad + "\n"
    return (b"\x93NUMPY" + bytes(version) + struct.pack(length_format, len(header))
            + header.encode("latin1") + data)


files = {
    # np.arange(4, dtype=np.float32)
    "numpy_f4_arange4.npy": npy("<f4", (4,), struct.pack("<4f", 0, 1, 2, 3)),
    # np.array([[1, -2, 3], [-4, 5, -6]], dtype=np.int16), format 2.0
    "numpy_i2_2x3_v2.npy": npy("<i2", (2, 3), struct.pack("<6h", 1, -2, 3, -4, 5, -6), (2, 0)),
    # np.array(True), a 0-d array, format 3.0
    "numpy_b1_scalar_v3.npy": npy("|b1", (), b"\x01", (3, 0)),
    # np.array([1+2j, -0.5j], dtype=np.complex128)
    "numpy_c16_2.npy": npy("<c16", (2,), struct.pack("<4d", 1, 2, 0, -0.5)),
    # np.zeros((0, 5), dtype=np.uint8)
    "numpy_u1_0x5.npy": npy("|u1", (0, 5), b""),
    # np.array([1, 2, 3], dtype='>i4'): big-endian, to be refused
    "numpy_big_endian_i4.npy": npy(">i4", (3,), struct.pack(">3i", 1, 2, 3)),
}

if __name__ == "__main__":
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    for name, data in files.items():
        with open(os.path.join(here, name), "wb") as f:
            f.write(data)
