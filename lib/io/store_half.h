/* IEEE 754 binary16 ("half", float16) for the store's float16 parameters. */
#ifndef QKV_LIB_IO_STORE_HALF_H
#define QKV_LIB_IO_STORE_HALF_H

#include <hdf5.h>
#include <stdint.h>

/* The binary16 bits of f, rounded to nearest with ties to even (IEEE 754-2008, 4.3.1):
 * magnitudes from 65520 up become inf, those below 2^-25 (and 2^-25 itself, a tie) zero, with
 * f's sign; nan stays nan. */
uint16_t qkv_half_from_float(float f);

/* A new HDF5 datatype for little-endian binary16 (HDF5 1.10 has none built in): sign bit 15,
 * exponent bits 10..14 with bias 15, fraction bits 0..9. HDF5 converts it to float when read
 * with H5T_NATIVE_FLOAT, exactly. The caller closes it (H5Tclose); -1 on an HDF5 failure. */
int64_t qkv_half_h5_type(void);

#endif
