#include "train/interrupt.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

static atomic_int interrupted;    /* the caught signal, 0: none */
static atomic_bool catching;      /* between qkv_interrupts_catch and qkv_interrupts_restore */
static atomic_bool ignored[2];    /* SIGINT, SIGTERM were ignored at qkv_interrupts_start */

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

/* What either signal does, from the signal thread or from a handler: only async-signal-safe
 * calls here (write, signal, pthread_sigmask, raise). */
static void take(int signo)
{
    int none = 0;
    if (!atomic_load(&catching) && atomic_load(&ignored[signo == SIGTERM]))
        return; /* as the process was started: a background job of a shell without job control */
    if (!atomic_load(&catching) || !atomic_compare_exchange_strong(&interrupted, &none, signo)) {
        die_by(signo);
        return;
    }
    static const char msg[] = "\nqkv: stopping after this step to save a checkpoint (again to stop at once)\n";
    ssize_t unused = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)unused;
}

static void on_signal(int signo) { take(signo); }

static void both(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
}

static void *signal_thread(void *arg)
{
    (void)arg;
    sigset_t set;
    both(&set);
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
    both(&set);
    for (int i = 0; i < 2; i++) {
        struct sigaction now;
        if (sigaction(i ? SIGTERM : SIGINT, NULL, &now) == 0)
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
    sigaction(SIGINT, &sa, &in->old[0]);
    sigaction(SIGTERM, &sa, &in->old[1]);
    atomic_store(&catching, true);
}

void qkv_interrupts_restore(qkv_interrupts *in)
{
    if (!in->caught)
        return;
    atomic_store(&catching, false);
    sigaction(SIGINT, &in->old[0], NULL);
    sigaction(SIGTERM, &in->old[1], NULL);
    in->caught = false;
}

int qkv_interrupted(void) { return atomic_load(&interrupted); }
