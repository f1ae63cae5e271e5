/* CRC-32C (Castagnoli; RFC 3720 appendix B.4): the reflected polynomial 0x82F63B78, initial
 * value and final XOR 0xFFFFFFFF; "123456789" gives 0xE3069283. The checksum of TFRecord
 * framing (train/tfevents.h). */
#ifndef QKV_CRC32C_H
#define QKV_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Chains over pieces: crc = qkv_crc32c(0, a, n); crc = qkv_crc32c(crc, b, m) is the CRC of a then b. */
uint32_t qkv_crc32c(uint32_t crc, const void *data, size_t n);
/* TFRecord's masked CRC: ((crc >> 15) | (crc << 17)) + 0xa282ead8, modulo 2^32. */
uint32_t qkv_crc32c_masked(const void *data, size_t n);

#endif
