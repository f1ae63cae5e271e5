/* oneDNN generates its sgemm kernels (machine code for this processor) in the process's first
 * products: about 45 ms on the machine of docs/speed.md, longer than a short evaluation's
 * products. qkv_gemm_warm_up starts one thread that makes them with a few products on
 * zeros, so that the generation runs while the program reads its model and data; a product
 * that comes first waits for the kernel it needs (oneDNN makes each once). The qkv command
 * calls it at the start of the commands that run a model, before their config is read: it
 * does nothing when the products chosen so far (lib/gemm/backend.h) run on OpenBLAS or in bf16,
 * in the double build, or a second time; if the config then chooses OpenBLAS, the thread's
 * work is not used. If the thread cannot start, the first products make the kernels. */
#ifndef QKV_GEMM_WARM_UP_H
#define QKV_GEMM_WARM_UP_H

void qkv_gemm_warm_up(void);
/* Waits for that thread to end (at once if none runs). Call it before the process exits: a
 * thread still inside oneDNN when the libraries are unloaded crashes the exit. */
void qkv_gemm_warm_up_wait(void);

#endif
