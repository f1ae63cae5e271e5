/* The signal thread of qkv train (train/interrupt.h): after qkv_interrupts_start, SIGINT,
 * SIGTERM and SIGHUP are blocked in the threads that compute (the caller and the OpenMP and
 * POSIX threads it starts later), so no handler runs on a stack that oneDNN's kernels moved into
 * the heap; a signal sent to the process is still caught, once, by the thread of its own, and a
 * second SIGHUP (a closed terminal may send two) does not end the process. */
#include "testutil.h"

#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "train/interrupt.h"

static bool both_blocked(void)
{
    sigset_t now;
    pthread_sigmask(SIG_BLOCK, NULL, &now);
    return sigismember(&now, SIGINT) == 1 && sigismember(&now, SIGTERM) == 1 && sigismember(&now, SIGHUP) == 1;
}

static void *report_mask(void *out)
{
    *(bool *)out = both_blocked();
    return NULL;
}

static void test_computing_threads_block_both_signals(void **state)
{
    (void)state;
    assert_false(both_blocked()); /* as a process starts */
    assert_int_equal(qkv_interrupts_start(), 0);
    assert_true(both_blocked());
    int blocked = 0, team = 0;
#pragma omp parallel num_threads(2) reduction(+ : blocked, team)
    {
        blocked += both_blocked();
        team += 1;
    }
    assert_int_equal(team, 2);
    assert_int_equal(blocked, 2);
    pthread_t t;
    bool in_thread = false;
    assert_int_equal(pthread_create(&t, NULL, report_mask, &in_thread), 0);
    pthread_join(t, NULL);
    assert_true(in_thread);
}

/* Waits up to 5 s for qkv_interrupted() to say signo. */
static bool caught_within(int signo)
{
    for (int i = 0; i < 500 && qkv_interrupted() != signo; i++)
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    return qkv_interrupted() == signo;
}

static void test_signal_to_the_process_is_caught_by_the_signal_thread(void **state)
{
    (void)state;
    qkv_interrupts in;
    qkv_interrupts_catch(&in, true);
    assert_int_equal(qkv_interrupted(), 0);
    assert_int_equal(kill(getpid(), SIGTERM), 0);
    assert_true(caught_within(SIGTERM));
    qkv_interrupts_restore(&in);
    /* caught again: the earlier signal is forgotten */
    qkv_interrupts_catch(&in, true);
    assert_int_equal(qkv_interrupted(), 0);
    assert_int_equal(kill(getpid(), SIGINT), 0);
    assert_true(caught_within(SIGINT));
    qkv_interrupts_restore(&in);
    /* the terminal closed: caught, named, and a second SIGHUP is no "again" */
    qkv_interrupts_catch(&in, true);
    assert_int_equal(kill(getpid(), SIGHUP), 0);
    assert_true(caught_within(SIGHUP));
    assert_int_equal(kill(getpid(), SIGHUP), 0);
    nanosleep(&(struct timespec){0, 200 * 1000 * 1000}, NULL);
    assert_int_equal(qkv_interrupted(), SIGHUP); /* still here */
    assert_string_equal(qkv_interrupt_name(qkv_interrupted()), "SIGHUP");
    qkv_interrupts_restore(&in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_computing_threads_block_both_signals),
        cmocka_unit_test(test_signal_to_the_process_is_caught_by_the_signal_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
