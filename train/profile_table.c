#include "train/profile_table.h"

#include "lib/profile.h"

void qkv_profile_print(FILE *out, const char *command, double wall_start)
{
    qkv_profile_stop();
    double wall = qkv_profile_clock() - wall_start;
    qkv_profile_row rows[QKV_PROFILE_MAX_ROWS + 1];
    int n = qkv_profile_rows(rows, QKV_PROFILE_MAX_ROWS + 1);
    double sum = 0;
    fprintf(out, "\nprofile of %s (exclusive time: a region's own, without the regions inside it)\n", command);
    fprintf(out, "  %-26s %10s %9s %7s\n", "region", "seconds", "calls", "% wall");
    for (int i = 0; i < n; i++) {
        char label[96];
        const char *suffix = rows[i].kind == QKV_PROF_FWD ? " fwd" : rows[i].kind == QKV_PROF_BWD ? " bwd" : "";
        snprintf(label, sizeof label, "%s%s", rows[i].name, suffix);
        fprintf(out, "  %-26s %10.3f %9ld %7.1f\n", label, rows[i].seconds, rows[i].calls,
                wall > 0 ? 100 * rows[i].seconds / wall : 0);
        sum += rows[i].seconds;
    }
    fprintf(out, "  %-26s %10.3f %9s %7.1f\n", "total", sum, "", wall > 0 ? 100 * sum / wall : 0);
    fprintf(out, "wall time %.3f s; the rows add up to %.3f s (%.1f%%)\n", wall, sum, wall > 0 ? 100 * sum / wall : 0);
}
