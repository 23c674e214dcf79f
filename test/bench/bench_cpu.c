/*
 * bench_cpu.c - CPU time of a timed phase by class of process, from /proc
 * (see bench_cpu.h).
 */
#define _GNU_SOURCE
#include "bench_cpu.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Read up to len - 1 bytes of a file into buf; its length, or -1. */
static ssize_t
cpu_read(const char *path, char *buf, size_t len)
{
	FILE	   *f = fopen(path, "r");
	size_t		n;

	if (f == NULL)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return (ssize_t) n;
}

/* utime + stime of /proc/PID/stat in clock ticks; -1 if unreadable. */
static double
cpu_proc_ticks(const char *pid)
{
	char		path[300],
				buf[1024];
	const char *p;
	unsigned long long ut,
				st;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if (cpu_read(path, buf, sizeof(buf)) <= 0 || (p = strrchr(buf, ')')) == NULL)
		return -1;
	/* after "pid (comm)": state ppid pgrp session tty tpgid flags minflt
	 * cminflt majflt cmajflt utime stime */
	if (sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			   &ut, &st) != 2)
		return -1;
	return (double) (ut + st);
}

/* Whether /proc/PID/cmdline is the gpuidx executor's process title. */
static bool
cpu_is_executor(const char *pid)
{
	char		path[300],
				buf[256];
	ssize_t		n;

	snprintf(path, sizeof(path), "/proc/%s/cmdline", pid);
	if ((n = cpu_read(path, buf, sizeof(buf))) <= 0)
		return false;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	return strstr(buf, "gpuidx executor") != NULL;
}

/* Order processes by pid. */
static int
cpu_cmp_pid(const void *a, const void *b)
{
	int			x = ((const bench_cpu_proc *) a)->pid,
				y = ((const bench_cpu_proc *) b)->pid;

	return (x > y) - (x < y);
}

/* Take a snapshot (see bench_cpu.h). */
void
bench_cpu_take(bench_cpu_snap *s, const int *pids, int n)
{
	double		hz = (double) sysconf(_SC_CLK_TCK);
	char		buf[512];
	unsigned long long v[8] = {0};
	DIR		   *d;
	struct dirent *e;
	int			me = (int) getpid(),
				cap = 0;

	memset(s, 0, sizeof(*s));
	if (hz <= 0 || cpu_read("/proc/stat", buf, sizeof(buf)) <= 0 ||
		sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8 ||
		(d = opendir("/proc")) == NULL)
		return;
	/* user nice system idle iowait irq softirq steal */
	s->host_busy = (double) (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / hz;
	s->host_total = s->host_busy + (double) (v[3] + v[4]) / hz;
	while ((e = readdir(d)) != NULL)
	{
		bench_cpu_proc p = {0};
		double		t;

		if (!isdigit((unsigned char) e->d_name[0]) ||
			(t = cpu_proc_ticks(e->d_name)) < 0)
			continue;
		p.pid = atoi(e->d_name);
		p.sec = t / hz;
		p.cls = BENCH_CPU_OTHER;
		for (int i = 0; i < n && p.cls == BENCH_CPU_OTHER; i++)
			if (pids[i] == p.pid)
				p.cls = BENCH_CPU_BACKEND;
		if (p.cls == BENCH_CPU_OTHER)
			p.cls = p.pid == me ? BENCH_CPU_SELF :
				cpu_is_executor(e->d_name) ? BENCH_CPU_EXECUTOR : BENCH_CPU_OTHER;
		if (s->nprocs == cap)
		{
			bench_cpu_proc *np;

			cap = cap ? 2 * cap : 512;
			if ((np = realloc(s->procs, sizeof(*np) * (size_t) cap)) == NULL)
				break;
			s->procs = np;
		}
		s->procs[s->nprocs++] = p;
	}
	closedir(d);
	qsort(s->procs, (size_t) s->nprocs, sizeof(bench_cpu_proc), cpu_cmp_pid);
	s->ok = true;
}

/* Free a snapshot's process table. */
void
bench_cpu_free(bench_cpu_snap *s)
{
	free(s->procs);
	s->procs = NULL;
	s->nprocs = 0;
}

/* What happened between a and b, over nq queries (see bench_cpu.h). */
bench_cpu_use
bench_cpu_diff(const bench_cpu_snap *a, const bench_cpu_snap *b, double nq)
{
	bench_cpu_use u;
	double		total = b->host_total - a->host_total,
				per = nq > 0 ? 1e6 / nq : 0;
	long		ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	memset(&u, 0, sizeof(u));
	if (!a->ok || !b->ok || total <= 0)
		return u;
	u.ok = true;
	u.busy_pct = 100.0 * (b->host_busy - a->host_busy) / total;
	u.cores = ncpu > 0 ? u.busy_pct / 100.0 * (double) ncpu : 0;
	/* both tables are sorted by pid: walk them together */
	for (int i = 0, j = 0; j < b->nprocs; j++)
	{
		const bench_cpu_proc *q = &b->procs[j];
		double		d = q->sec;
		double	   *to;

		while (i < a->nprocs && a->procs[i].pid < q->pid)
			i++;
		if (i < a->nprocs && a->procs[i].pid == q->pid)
			d -= a->procs[i].sec;
		to = q->cls == BENCH_CPU_BACKEND ? &u.backends_us :
			q->cls == BENCH_CPU_EXECUTOR ? &u.executor_us :
			q->cls == BENCH_CPU_SELF ? &u.self_us : &u.other_us;
		*to += d * per;
	}
	return u;
}
