/* Files and folders of the application (run folders, plots): not a command-line concern. */
#ifndef QKV_TRAIN_FILES_H
#define QKV_TRAIN_FILES_H

/* mkdir -p: path and every missing parent (mode 0777 before the umask). Returns 0, or -1 with
 * errno (ENOTDIR when path exists and is not a folder, ENAMETOOLONG past 4095 bytes). */
int qkv_mkdirs(const char *path);

#endif
