/* The qkv subcommands. Each run function gets argv starting at the command's name and
 * returns the process exit status: 0 success, 1 failure (a message was printed), 2 usage. */
#ifndef QKV_COMMANDS_H
#define QKV_COMMANDS_H

#include <stdbool.h>

typedef struct qkv_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
    bool runs_model; /* runs float products: oneDNN's kernels are made from its start (lib/gemm/warm_up.h) */
} qkv_command;

/* The qkv command as the user ran it (main's argv[0]: "qkv", "./build/qkv"), for the commands
 * it prints to run next. */
extern const char *qkv_program;

int qkv_cmd_train(int argc, char **argv);
int qkv_cmd_stats(int argc, char **argv);
int qkv_cmd_eval(int argc, char **argv);
int qkv_cmd_tag(int argc, char **argv);
int qkv_cmd_gradcheck(int argc, char **argv);
int qkv_cmd_synth(int argc, char **argv);
int qkv_cmd_speech(int argc, char **argv);
int qkv_cmd_config(int argc, char **argv);
int qkv_cmd_plot(int argc, char **argv);
int qkv_cmd_attention(int argc, char **argv);
int qkv_cmd_parse_draw(int argc, char **argv);
int qkv_cmd_positions(int argc, char **argv);
int qkv_cmd_export(int argc, char **argv);
int qkv_cmd_serve(int argc, char **argv);
int qkv_cmd_board(int argc, char **argv);

#endif
