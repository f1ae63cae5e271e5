#include "train/interrupt.h"

#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t interrupted;

/* Only async-signal-safe calls here (signal, raise, write). */
static void on_interrupt(int signo)
{
    if (interrupted) {
        signal(signo, SIG_DFL);
        raise(signo);
        return;
    }
    interrupted = signo;
    static const char msg[] = "\nqkv: stopping after this step to save a checkpoint (again to stop at once)\n";
    ssize_t unused = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)unused;
}

void qkv_interrupts_catch(qkv_interrupts *in, bool on)
{
    interrupted = 0;
    in->caught = on;
    if (!on)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &in->old[0]);
    sigaction(SIGTERM, &sa, &in->old[1]);
}

void qkv_interrupts_restore(qkv_interrupts *in)
{
    if (!in->caught)
        return;
    sigaction(SIGINT, &in->old[0], NULL);
    sigaction(SIGTERM, &in->old[1], NULL);
    in->caught = false;
}

int qkv_interrupted(void) { return interrupted; }
