/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two emulated devices never collide on a network namespace name: the
 * host-wide claims of rsh_sim_nslock.c, within one process and across
 * processes, and (where namespaces can be made) an instance refusing the
 * namespace another live instance uses instead of "removing a stale" one.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "rsh_sim_peer.h"

static char rsh_t_dir[64];

/* The named network namespace exists (its /run/netns entry; `ip netns
 * list` output is partial while other processes add and delete some). */
static bool
rsh_t_listed(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	return access(path, F_OK) == 0;
}

/* One process: a held index is busy (holder = us), the first free index
 * skips it, a released one is free again. */
static void
test_claim_local(void **state)
{
	pid_t holder;
	unsigned int idx;
	int a, b, c;

	(void)state;
	a = rsh_sim_nslock_claim(0, &holder);
	assert_true(a >= 0);
	assert_int_equal(rsh_sim_nslock_claim(0, &holder), -EBUSY);
	assert_int_equal(holder, getpid());
	b = rsh_sim_nslock_claim_free(&idx);
	assert_true(b >= 0);
	assert_int_equal(idx, 1);
	rsh_sim_nslock_release(a);
	c = rsh_sim_nslock_claim(0, &holder);
	assert_true(c >= 0);
	rsh_sim_nslock_release(b);
	rsh_sim_nslock_release(c);
}

/* Across processes: busy while the child lives, free once it is gone
 * (however it ended: the kernel drops the lock). */
static void
test_claim_cross_process(void **state)
{
	int go[2], done[2], st, fd;
	pid_t child, holder;
	char c = 0;

	(void)state;
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pid_t h;

		if (rsh_sim_nslock_claim(7, &h) < 0)
			_exit(3);
		if (write(go[1], "x", 1) != 1 || read(done[0], &c, 1) != 1)
			_exit(4);
		_exit(0); /* no release: exit drops it */
	}
	assert_int_equal(read(go[0], &c, 1), 1);
	assert_int_equal(rsh_sim_nslock_claim(7, &holder), -EBUSY);
	assert_int_equal(holder, child);
	assert_int_equal(write(done[1], "x", 1), 1);
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	fd = rsh_sim_nslock_claim(7, &holder);
	assert_true(fd >= 0);
	rsh_sim_nslock_release(fd);
	close(go[0]); close(go[1]); close(done[0]); close(done[1]);
}

/* A directory of this test's own under rsh_t_dir, made the lock
 * directory with the given mode. */
static void
rsh_t_lock_dir(const char *leaf, mode_t mode, char *out, size_t len)
{
	mkdir(rsh_t_dir, 0700);
	snprintf(out, len, "%s/%s", rsh_t_dir, leaf);
	assert_int_equal(mkdir(out, 0700), 0);
	assert_int_equal(chmod(out, mode), 0);
	setenv("RSHIM_SIM_LOCK_DIR", out, 1);
}

/* The content of a small file. */
static void
rsh_t_read(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* What a user plants at the lock's name (a symbolic or hard link to a
 * file root would then truncate, a FIFO, a directory) is refused with
 * -EPERM, never followed, written or waited on. */
static void
test_planted_lock_files(void **state)
{
	char dir[160], lock[192], victim[192], got[32];
	pid_t holder;
	FILE *f;
	int fd;

	(void)state;
	if (getenv("RSH_T_NETNS") != NULL)
		skip(); /* the rules, in this run's own directories */
	rsh_t_lock_dir("planted", 01777, dir, sizeof(dir));
	snprintf(victim, sizeof(victim), "%s/victim", rsh_t_dir);
	f = fopen(victim, "w");
	assert_non_null(f);
	fputs("precious\n", f);
	fclose(f);
	snprintf(lock, sizeof(lock), "%s/%s3.lock", dir, rsh_sim_ns_prefix());
	for (int kind = 0; kind < 4; kind++) {
		unlink(lock);
		rmdir(lock);
		if (kind == 0)
			assert_int_equal(symlink(victim, lock), 0);
		else if (kind == 1)
			assert_int_equal(link(victim, lock), 0);
		else if (kind == 2)
			assert_int_equal(mkfifo(lock, 0666), 0);
		else
			assert_int_equal(mkdir(lock, 0777), 0);
		assert_int_equal(rsh_sim_nslock_claim(3, &holder), -EPERM);
		rsh_t_read(victim, got, sizeof(got));
		assert_string_equal(got, "precious\n");
	}
	rmdir(lock);
	/* Once it is gone the index is free again. */
	fd = rsh_sim_nslock_claim(3, &holder);
	assert_true(fd >= 0);
	rsh_sim_nslock_release(fd);
	setenv("RSHIM_SIM_LOCK_DIR", rsh_t_dir, 1);
}

/* A lock directory others can write to is refused unless it is sticky;
 * one owned by another user is refused; in a sticky one, another user's
 * lock file is locked as it is, never written. */
static void
test_lock_dir_rules(void **state)
{
	char dir[160], lock[192], got[32];
	pid_t holder;
	FILE *f;
	int fd, fd2;

	(void)state;
	if (getenv("RSH_T_NETNS") != NULL)
		skip(); /* the rules, in this run's own directories */
	rsh_t_lock_dir("open", 0777, dir, sizeof(dir));
	assert_int_equal(rsh_sim_nslock_claim(4, &holder), -EPERM);
	assert_int_equal(rsh_sim_nslock_claim_free(&(unsigned int){ 0 }), -EPERM);
	rsh_t_lock_dir("group", 0770, dir, sizeof(dir));
	assert_int_equal(rsh_sim_nslock_claim(4, &holder), -EPERM);
	rsh_t_lock_dir("sticky", 01777, dir, sizeof(dir));
	fd = rsh_sim_nslock_claim(4, &holder);
	assert_true(fd >= 0);
	rsh_sim_nslock_release(fd);
	if (geteuid() != 0) {
		setenv("RSHIM_SIM_LOCK_DIR", rsh_t_dir, 1);
		return; /* the rest needs files of another user */
	}
	rsh_t_lock_dir("theirs", 0755, dir, sizeof(dir));
	assert_int_equal(chown(dir, 65534, 65534), 0);
	assert_int_equal(rsh_sim_nslock_claim(4, &holder), -EPERM);
	rsh_t_lock_dir("shared", 01777, dir, sizeof(dir));
	snprintf(lock, sizeof(lock), "%s/%s5.lock", dir, rsh_sim_ns_prefix());
	f = fopen(lock, "w");
	assert_non_null(f);
	fputs("4242\n", f);
	fclose(f);
	assert_int_equal(chown(lock, 65534, 65534), 0);
	fd = rsh_sim_nslock_claim(5, &holder);
	assert_true(fd >= 0);
	fd2 = rsh_sim_nslock_claim(5, &holder);
	assert_int_equal(fd2, -EBUSY);
	assert_int_equal(holder, 4242); /* its record, not ours */
	rsh_t_read(lock, got, sizeof(got));
	assert_string_equal(got, "4242\n");
	rsh_sim_nslock_release(fd);
	setenv("RSHIM_SIM_LOCK_DIR", rsh_t_dir, 1);
}

/* With real namespaces (root): a child instance owns <prefix><N>; our
 * explicit peer=N is refused with -EBUSY and its namespace stays; an
 * automatic index picks another name. */
static void
test_netns_no_collision(void **state)
{
	struct rsh_sim_peer_opts o = { .auto_index = true, .no_shell = true };
	struct rsh_sim_peer *p = NULL;
	int go[2], done[2], st;
	unsigned int idx = 0;
	char name[32], c;
	pid_t child;

	(void)state;
	if (getenv("RSH_T_NETNS") == NULL)
		skip();
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct rsh_sim_peer *cp;

		if (rsh_sim_peer_create(&o, &cp) != 0)
			_exit(3);
		idx = rsh_sim_peer_is_netns(cp) ? rsh_sim_peer_index(cp) : ~0u;
		if (write(go[1], &idx, sizeof(idx)) != sizeof(idx) ||
		    read(done[0], &c, 1) != 1)
			_exit(4);
		rsh_sim_peer_destroy(cp);
		_exit(0);
	}
	assert_int_equal(read(go[0], &idx, sizeof(idx)), sizeof(idx));
	if (idx == ~0u) { /* no namespaces here */
		assert_int_equal(write(done[1], "x", 1), 1);
		waitpid(child, &st, 0);
		skip();
	}
	snprintf(name, sizeof(name), "%s%u", rsh_sim_ns_prefix(), idx);
	assert_true(rsh_t_listed(name));
	o.auto_index = false;
	o.index = idx;
	assert_int_equal(rsh_sim_peer_create(&o, &p), -EBUSY);
	assert_true(rsh_t_listed(name)); /* not removed as "stale" */
	o.auto_index = true;
	assert_int_equal(rsh_sim_peer_create(&o, &p), 0);
	assert_int_not_equal(rsh_sim_peer_index(p), idx);
	rsh_sim_peer_destroy(p);
	assert_int_equal(write(done[1], "x", 1), 1);
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_false(rsh_t_listed(name));
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_claim_local),
		cmocka_unit_test(test_claim_cross_process),
		cmocka_unit_test(test_planted_lock_files),
		cmocka_unit_test(test_lock_dir_rules),
		cmocka_unit_test(test_netns_no_collision),
	};
	int rc;

	char prefix[24];

	snprintf(rsh_t_dir, sizeof(rsh_t_dir), "/tmp/rsh-t-nslock.%ld",
		 (long)getpid());
	/* This run's own namespace names (the locks still meet host-wide). */
	snprintf(prefix, sizeof(prefix), "rsht%d-", (int)getpid());
	setenv("RSHIM_SIM_NETNS_PREFIX", prefix, 1);
	if (argc > 1 && strcmp(argv[1], "--netns") == 0)
		setenv("RSH_T_NETNS", "1", 1); /* real /run/rshim-sim */
	else
		setenv("RSHIM_SIM_LOCK_DIR", rsh_t_dir, 1);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	if (getenv("RSH_T_NETNS") == NULL) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", rsh_t_dir);
		if (system(cmd) != 0)
			rc = rc ? rc : 1;
	}
	return rc;
}
