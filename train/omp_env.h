/* libgomp's threads spin-wait for 300,000 iterations (OMP_WAIT_POLICY unset) after every
 * parallel region before they sleep. On a machine whose cores are shared with other work, a
 * spinning thread takes the core that the thread with the next piece of work needs: measured
 * on the 2-core development machine under load ~9, 2 threads trained the EWT tagger at ~1,000
 * tokens/s with the default and ~5,000-9,000 with short spins, while an idle machine loses
 * little with short spins (a futex wake per region, microseconds). libgomp reads its settings
 * before main(), so the command re-executes itself once with GOMP_SPINCOUNT set.
 *
 * qkv_omp_env_setup: unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is already set (by the user, or
 * by the re-exec), sets GOMP_SPINCOUNT=QKV_GOMP_SPINCOUNT and execv's /proc/self/exe with the
 * same argv; returns only when nothing needs doing or the exec failed. Set OMP_WAIT_POLICY
 * (e.g. active) to keep libgomp's own behaviour, e.g. under valgrind. */
#ifndef QKV_OMP_ENV_H
#define QKV_OMP_ENV_H

#define QKV_GOMP_SPINCOUNT "1000"

void qkv_omp_env_setup(char **argv);

#endif
