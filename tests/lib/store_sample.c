/* A tiny tool for tests/lib/test_store_h5py.sh, built against the float library:
 *   store_sample write PATH   writes the sample checkpoint of store_fixture.h
 *   store_sample check PATH   reads it back; exit 0 when every item is exactly equal
 *   store_sample step PATH    prints /train/step (to see an edit made by another tool)
 *   store_sample strings PATH ITEM   prints the list of strings ITEM, one a line
 *   store_sample text PATH ITEM      prints the text ITEM (a scalar string)
 * Errors go to stderr with exit status 1. */
#include "store_fixture.h"

int main(int argc, char **argv)
{
    bool item = argc == 4 && (!strcmp(argv[1], "strings") || !strcmp(argv[1], "text"));
    if (argc != 3 && !item) {
        fprintf(stderr, "usage: store_sample write|check|step PATH, or store_sample strings|text PATH ITEM\n");
        return 2;
    }
    const char *cmd = argv[1], *path = argv[2];
    if (strcmp(cmd, "write") == 0) {
        fx_write_sample(path);
        return 0;
    }
    qkv_store_reader *r;
    qkv_error err = {0};
    if (qkv_store_open(path, &r, &err) != QKV_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    int rc = QKV_OK;
    if (strcmp(cmd, "check") == 0) {
        rc = fx_check_sample(r, &err);
    } else if (item) {
        size_t n = 1;
        char **list = NULL, *text = NULL;
        rc = cmd[0] == 's' ? qkv_store_read_strings(r, argv[3], &n, &list, &err)
                           : qkv_store_read_text(r, argv[3], &text, &err);
        for (size_t i = 0; rc == QKV_OK && i < n; i++)
            printf("%s\n", list ? list[i] : text);
        free(list);
        free(text);
    } else {
        int64_t step;
        rc = qkv_store_read_i64(r, "/train/step", &step, &err);
        if (rc == QKV_OK)
            printf("%lld\n", (long long)step);
    }
    qkv_store_close(r);
    if (rc != QKV_OK)
        fprintf(stderr, "%s\n", err.msg);
    return rc == QKV_OK ? 0 : 1;
}
