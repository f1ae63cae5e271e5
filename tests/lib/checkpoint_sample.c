/* A tiny tool for tests/lib/test_checkpoint_h5py.sh, built against the float library:
 *   checkpoint_sample write PATH   writes the sample checkpoint of checkpoint_fixture.h
 *   checkpoint_sample check PATH   reads it back; exit 0 when every item is exactly equal
 *   checkpoint_sample step PATH    prints /train/step (to see an edit made by another tool)
 * Errors go to stderr with exit status 1. */
#include "checkpoint_fixture.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: checkpoint_sample write|check|step PATH\n");
        return 2;
    }
    const char *cmd = argv[1], *path = argv[2];
    if (strcmp(cmd, "write") == 0) {
        fx_write_sample(path);
        return 0;
    }
    qkv_ckpt_reader *r;
    qkv_error err = {{0}};
    if (qkv_ckpt_open(path, &r, &err) != QKV_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    int rc = QKV_OK;
    if (strcmp(cmd, "check") == 0) {
        rc = fx_check_sample(r, &err);
    } else {
        int64_t step;
        rc = qkv_ckpt_read_i64(r, "/train/step", &step, &err);
        if (rc == QKV_OK)
            printf("%lld\n", (long long)step);
    }
    qkv_ckpt_close(r);
    if (rc != QKV_OK)
        fprintf(stderr, "%s\n", err.msg);
    return rc == QKV_OK ? 0 : 1;
}
