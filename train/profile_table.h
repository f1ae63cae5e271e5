/* The --profile option of qkv train and qkv eval: the table of lib/profile.h's rows. */
#ifndef QKV_PROFILE_TABLE_H
#define QKV_PROFILE_TABLE_H

#include <stdbool.h>
#include <stdio.h>

/* The --profile row of a command's option table (field: bool *). */
#define QKV_PROFILE_OPTION_ROW(flag)                                                                  \
    {"--profile", QKV_CLI_FLAG, (flag), NULL,                                                         \
     "at the end, print on stderr where the time went: seconds, calls and %\n"                      \
     "of wall time per op (forward and backward apart) and per phase"}

/* Stops the profile (lib/profile.h) and prints its table on out: one row per region (label,
 * seconds, calls, % of wall), largest first, then a total row, then the wall time of the
 * command measured apart (from wall_start, a qkv_profile_clock() reading taken when the
 * command began) beside the rows' sum. `command` names it in the title ("qkv train"). */
void qkv_profile_print(FILE *out, const char *command, double wall_start);

#endif
