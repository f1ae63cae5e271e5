#include "train/interrupt.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/* The signals taken, in the order of qkv_interrupts.old. */
static const int SIGNALS[QKV_N_INTERRUPTS] = {SIGINT, SIGTERM, SIGHUP};

static atomic_int interrupted;                    /* the caught signal, 0: none */
static atomic_bool catching;                      /* between qkv_interrupts_catch and qkv_interrupts_restore */
static atomic_bool ignored[QKV_N_INTERRUPTS];     /* ignored at qkv_interrupts_start */

static int index_of(int signo)
{
    for (int i = 0; i < QKV_N_INTERRUPTS; i++)
        if (SIGNALS[i] == signo)
            return i;
    return 0;
}

/* Ends the process by signo as its default action does. */
static void die_by(int signo)
{
    signal(signo, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, signo);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    raise(signo);
}

/* What any of the signals does, from the signal thread or from a handler: only
 * async-signal-safe calls here (write, signal, pthread_sigmask, raise). */
static void take(int signo)
{
    int none = 0;
    bool was_ignored = atomic_load(&ignored[index_of(signo)]);
    /* SIGHUP ignored as the process was started (nohup): the user asked to outlive the terminal.
     * SIGINT or SIGTERM ignored: a background job of a shell without job control, until a
     * run is caught. */
    if (was_ignored && (signo == SIGHUP || !atomic_load(&catching)))
        return;
    if (!atomic_load(&catching)) {
        die_by(signo);
        return;
    }
    if (!atomic_compare_exchange_strong(&interrupted, &none, signo)) {
        /* A closed terminal may send SIGHUP more than once (the shell passes its own on to its
         * jobs, and the kernel sends one as the shell leaves), and it is never the user asking
         * again: only a second SIGINT or SIGTERM stops at once. */
        if (signo != SIGHUP)
            die_by(signo);
        return;
    }
    static const char msg[] = "\nqkv: stopping after this step to save a checkpoint (again to stop at once)\n";
    ssize_t unused = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)unused;
}

static void on_signal(int signo) { take(signo); }

static void all(sigset_t *set)
{
    sigemptyset(set);
    for (int i = 0; i < QKV_N_INTERRUPTS; i++)
        sigaddset(set, SIGNALS[i]);
}

static void *signal_thread(void *arg)
{
    (void)arg;
    sigset_t set;
    all(&set);
    for (;;) {
        int signo;
        if (sigwait(&set, &signo) == 0)
            take(signo);
    }
    return NULL;
}

int qkv_interrupts_start(void)
{
    sigset_t set, old;
    all(&set);
    for (int i = 0; i < QKV_N_INTERRUPTS; i++) {
        struct sigaction now;
        if (sigaction(SIGNALS[i], NULL, &now) == 0)
            atomic_store(&ignored[i], now.sa_handler == SIG_IGN);
    }
    int rc = pthread_sigmask(SIG_BLOCK, &set, &old);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    pthread_attr_t attr;
    pthread_t thread;
    rc = pthread_attr_init(&attr);
    if (rc == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        rc = pthread_create(&thread, &attr, signal_thread, NULL);
        pthread_attr_destroy(&attr);
    }
    if (rc != 0) {
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        errno = rc;
        return -1;
    }
    return 0;
}

void qkv_interrupts_catch(qkv_interrupts *in, bool on)
{
    atomic_store(&interrupted, 0);
    in->caught = on;
    if (!on)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < QKV_N_INTERRUPTS; i++) {
        sigaction(SIGNALS[i], NULL, &in->old[i]);
        /* an ignored SIGHUP stays ignored (nohup) */
        if (SIGNALS[i] != SIGHUP || in->old[i].sa_handler != SIG_IGN)
            sigaction(SIGNALS[i], &sa, NULL);
    }
    atomic_store(&catching, true);
}

void qkv_interrupts_restore(qkv_interrupts *in)
{
    if (!in->caught)
        return;
    atomic_store(&catching, false);
    for (int i = 0; i < QKV_N_INTERRUPTS; i++)
        sigaction(SIGNALS[i], &in->old[i], NULL);
    in->caught = false;
}

int qkv_interrupted(void) { return atomic_load(&interrupted); }

const char *qkv_interrupt_name(int signo)
{
    switch (signo) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
    }
}
