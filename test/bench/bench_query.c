/*
 * bench_query.c - client-side query benchmark driver (libpq): runs each path
 * over the same query set in one run, measures every query's latency at the
 * client (the real round trip, result transfer included), and reports
 * queries/s, p50 and p99, checking every path's results.
 *
 *   bench_query --dataset NAME --queries-sql "SELECT qid, p1, p2 FROM ..."
 *               [--answers-sql "SELECT qid, n, hash FROM answers" | --answers-file F]
 *               [--save-answers F]
 *               --path "NAME|SETUP SQL|QUERY SQL" [--path ...]
 *               [--min-time S] [--max-time S] [--clients N] [--tsv OUT]
 *               [--header 0|1] [--min-count N] [--cpu 0|1]
 *
 * Connection parameters come from the environment (PGHOST, PGPORT,
 * PGDATABASE, PGUSER).  The queries SQL returns a qid and up to two text
 * parameters; a path's query SQL uses them as $1 and $2 (both typed text,
 * so a path may ignore one: "$1::int[]", "$2::tsquery") and returns one
 * int4[] (or NULL for no rows).  SETUP (may be empty) runs once on the
 * path's own connection; a SETUP of "!reason" reports the path "not
 * available: reason" without running it.  Answers ("qid n hash", hash the
 * FNV-1a of the result's docIDs as ref_hash_docs computes it) come from SQL
 * or a file; without them the first path that runs is the reference, and
 * --save-answers writes its results in that format for a later run.  Every path first runs each query once untimed
 * (warm-up and result check against the answers, or against the first
 * path when there are no answers), then timed rounds over the whole set
 * until --min-time has passed; --max-time stops a slow path mid-round.
 * With --clients N the timed rounds run on N connections at once (threads,
 * each its own share of the queries; the path's name gets "[N clients]"):
 * the executor batches across backends, so one client does not show it.
 * A path whose setup or prepare fails is reported "not available" with the
 * server's message; a figure from fewer than 50 queries (--min-count) or
 * less than one second of measurement is "too small to report" (p99:
 * fewer than 100).  A path whose one "query" is a whole set of queries
 * (one statement answering them all) may lower --min-count.  --cpu 1 also
 * reports where the timed rounds' CPU time went (bench_cpu.h): the host's
 * busy share, and CPU microseconds a query of the path's backends, of the
 * gpuidx executor, of this client and of everything else.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <time.h>
#include <pthread.h>
#include <libpq-fe.h>

#include "gen_common.h"
#include "bench_util.h"
#include "bench_cpu.h"

#define MIN_QUERIES 50
#define MIN_P99 100
#define TOO_SMALL "too small to report"
#define TEXTOID 25

typedef struct bq
{
	int			qid;
	char	   *p1,
			   *p2;
	bool		has_answer;
	long		ans_n;
	uint64_t	ans_hash;
	bool		has_ref;
	long		ref_n;
	uint64_t	ref_hash;
} bq;

static double min_time = 2.0,
			max_time = 60.0;
static long min_count = MIN_QUERIES;	/* executions below: too small */
static const char *dataset = "dataset";
static FILE *tsv = NULL;
static bool cpu_report = false;	/* --cpu 1 */

/* Exit with a message. */
static void
die(const char *msg, const char *arg)
{
	fprintf(stderr, "bench_query: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	exit(2);
}

/* First line of a server message, without the trailing newline. */
static const char *
one_line(const char *msg)
{
	static char buf[300];
	size_t		i = 0;

	for (; msg && msg[i] && msg[i] != '\n' && i < sizeof(buf) - 1; i++)
		buf[i] = msg[i];
	buf[i] = '\0';
	return buf;
}

/* Connect from the environment; exits on failure. */
static PGconn *
connect_env(void)
{
	PGconn	   *c = PQconnectdb("");

	if (PQstatus(c) != CONNECTION_OK)
		die("cannot connect", one_line(PQerrorMessage(c)));
	return c;
}

/* Count and hash of an int4[] text result ("{1,2}" or NULL); false on junk. */
static bool
parse_result(PGresult *r, long *n, uint64_t *h)
{
	static uint32_t *buf = NULL;
	static size_t cap = 0;
	const char *s;
	long		k;

	if (PQntuples(r) != 1 || PQnfields(r) != 1)
		return false;
	if (PQgetisnull(r, 0, 0))
	{
		*n = 0;
		*h = ref_hash_docs(NULL, 0);
		return true;
	}
	s = PQgetvalue(r, 0, 0);
	k = gen_parse_array(&s, &buf, &cap);
	if (k < 0)
		return false;
	*n = k;
	*h = ref_hash_docs(buf, (size_t) k);
	return true;
}

/* Print and save one result row. */
static void
row(const char *path, size_t nlat, double el, double *lat, double mean_res,
	long bad, const char *status, const char *note)
{
	double		qps = el > 0 ? nlat / el : 0,
				p50 = -1,
				p99 = -1;
	bool		small = (long) nlat < min_count || el < 1.0;
	const char *st = status ? status : bad ? "error: wrong results" : small ? TOO_SMALL : "ok";

	if (lat && nlat)
	{
		qsort(lat, nlat, sizeof(double), cmp_double);
		p50 = percentile(lat, nlat, 50) * 1e3;
		if (nlat >= MIN_P99)
			p99 = percentile(lat, nlat, 99) * 1e3;
	}
	if (strcmp(st, "ok") == 0)
	{
		printf("| %s | %zu | %.2f | %.0f | %.3f | ", path, nlat, el, qps, p50);
		if (p99 >= 0)
			printf("%.3f |", p99);
		else
			printf("%s |", TOO_SMALL);
		printf(" %.1f |%s%s\n", mean_res, note ? " " : "", note ? note : "");
	}
	else
		printf("| %s | %zu | %.2f | %s | | | |\n", path, nlat, el, st);
	fflush(stdout);
	if (tsv)
		fprintf(tsv, "query\t%s\t%s\t%zu\t%.4f\t%.2f\t%.4f\t%.4f\t%.1f\t%ld\t%s%s%s\n",
				dataset, path, nlat, el, qps, p50, p99, mean_res, bad, st,
				note ? "; " : "", note ? note : "");
}

/* Connect, run the setup, prepare the query; NULL and a message on failure. */
static PGconn *
open_path(const char *setup, const char *sql, char *err, size_t errlen)
{
	Oid			types[2] = {TEXTOID, TEXTOID};
	PGconn	   *c = PQconnectdb("");
	PGresult   *r;

	if (PQstatus(c) != CONNECTION_OK)
	{
		snprintf(err, errlen, "error: %s", one_line(PQerrorMessage(c)));
		PQfinish(c);
		return NULL;
	}
	if (*setup)
	{
		r = PQexec(c, setup);
		if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
		{
			snprintf(err, errlen, "not available: %s", one_line(PQresultErrorMessage(r)));
			PQclear(r);
			PQfinish(c);
			return NULL;
		}
		PQclear(r);
	}
	r = PQprepare(c, "q", sql, 2, types);
	if (PQresultStatus(r) != PGRES_COMMAND_OK)
	{
		snprintf(err, errlen, "not available: %s", one_line(PQresultErrorMessage(r)));
		PQclear(r);
		PQfinish(c);
		return NULL;
	}
	PQclear(r);
	return c;
}

/* One client of a timed phase. */
typedef struct client
{
	const char *setup,
			   *sql;
	bq		   *qs;
	int			nq,
				id,
				nclients;
	pthread_barrier_t *start,
			   *end;
	int			pid;			/* its backend's */
	bench_cpu_snap *cpu;		/* [2]: client 0 takes them (--cpu) */
	int		   *pids;			/* every client's backend, for client 0 */
	double	   *lat;
	size_t		nlat,
				cap;
	long		bad;
	bool		partial;
	char		err[400];
} client;

static double phase_t0,
			phase_t1;

/* Timed queries of one client: its share of the set, round after round. */
static void *
client_main(void *arg)
{
	client	   *cl = arg;
	PGconn	   *c = open_path(cl->setup, cl->sql, cl->err, sizeof(cl->err));
	long		done = 0,
				share = (cl->nq - cl->id + cl->nclients - 1) / cl->nclients;

	cl->pid = c ? PQbackendPID(c) : 0;
	pthread_barrier_wait(cl->start);
	if (cl->id == 0)
	{
		if (cpu_report)
		{
			for (int t = 0; t < cl->nclients; t++)
				cl->pids[t] = cl[t].pid;
			bench_cpu_take(&cl->cpu[0], cl->pids, cl->nclients);
		}
		phase_t0 = now();
	}
	pthread_barrier_wait(cl->start);
	for (; c != NULL && share > 0;)
	{
		int			i = (int) ((cl->id + done * cl->nclients) % cl->nq);
		const char *params[2] = {cl->qs[i].p1, cl->qs[i].p2};
		double		q0 = now(),
					el;
		PGresult   *r = PQexecPrepared(c, "q", 2, params, NULL, NULL, 0);

		if (cl->nlat == cl->cap)
		{
			cl->cap = cl->cap ? 2 * cl->cap : 1024;
			cl->lat = realloc(cl->lat, sizeof(double) * cl->cap);
		}
		cl->lat[cl->nlat++] = now() - q0;
		if (PQresultStatus(r) != PGRES_TUPLES_OK)
			cl->bad++;
		PQclear(r);
		done++;
		el = now() - phase_t0;
		if (el > max_time)
		{
			cl->partial = done < share;
			break;
		}
		if (el >= min_time && done % share == 0)
			break;
	}
	/* the phase ends when every client is done, before any disconnects */
	pthread_barrier_wait(cl->end);
	if (cl->id == 0)
	{
		phase_t1 = now();
		if (cpu_report)
			bench_cpu_take(&cl->cpu[1], cl->pids, cl->nclients);
	}
	pthread_barrier_wait(cl->end);
	if (c)
		PQfinish(c);
	return NULL;
}

/* Print and save where a timed phase's CPU went (--cpu 1). */
static void
cpu_row(const char *path, bench_cpu_snap cpu[2], double nq)
{
	bench_cpu_use u = bench_cpu_diff(&cpu[0], &cpu[1], nq);

	if (!u.ok)
		return;
	printf("| %s: CPU | host busy %.0f %% (%.1f cores) | us a query: backends %.1f, "
		   "executor %.1f, client %.1f, other %.1f |\n", path, u.busy_pct, u.cores,
		   u.backends_us, u.executor_us, u.self_us, u.other_us);
	fflush(stdout);
	if (tsv)
		fprintf(tsv, "cpu\t%s\t%s\t%.1f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\n", dataset, path,
				u.busy_pct, u.cores, u.backends_us, u.executor_us, u.self_us, u.other_us);
}

/* Run one path: setup, prepare, checked warm-up round, timed rounds. */
static void
run_path(const char *spec, bq *qs, int nq, bool *have_ref, int nclients)
{
	char	   *s = strdup(spec),
			   *name,
			   *setup,
			   *sql;
	PGconn	   *c;
	PGresult   *r;
	double		t0,
				el,
				sumres = 0;
	long		bad = 0;
	bool		partial = false,
				set_ref = !*have_ref;
	char		note[128] = "",
				err[400];
	client	   *cl;
	pthread_t  *th;
	pthread_barrier_t start,
				end;
	bench_cpu_snap cpu[2];
	int		   *pids;
	size_t		nlat = 0;
	double	   *lat;

	setup = strchr(s, '|');
	if (setup == NULL || (sql = strchr(setup + 1, '|')) == NULL)
		die("--path wants NAME|SETUP|SQL", spec);
	*setup++ = '\0';
	*sql++ = '\0';
	if (nclients > 1)
	{
		name = malloc(strlen(s) + 32);
		sprintf(name, "%s [%d clients]", s, nclients);
	}
	else
		name = strdup(s);
	if (*setup == '!')
	{
		/* the caller already knows this path cannot run here */
		snprintf(err, sizeof(err), "not available: %s", setup + 1);
		row(name, 0, 0, NULL, 0, 0, err, NULL);
		goto out;
	}
	if ((c = open_path(setup, sql, err, sizeof(err))) == NULL)
	{
		row(name, 0, 0, NULL, 0, 0, err, NULL);
		goto out;
	}

	/* warm-up and check, one client */
	t0 = now();
	for (int i = 0; i < nq; i++)
	{
		const char *params[2] = {qs[i].p1, qs[i].p2};
		long		n = 0;
		uint64_t	h = 0;

		r = PQexecPrepared(c, "q", 2, params, NULL, NULL, 0);
		if (PQresultStatus(r) != PGRES_TUPLES_OK)
		{
			snprintf(err, sizeof(err), "error: %s", one_line(PQresultErrorMessage(r)));
			row(name, 0, 0, NULL, 0, 0, err, NULL);
			PQclear(r);
			PQfinish(c);
			goto out;
		}
		if (!parse_result(r, &n, &h))
			bad++;
		else if (qs[i].has_answer)
			bad += (n != qs[i].ans_n || h != qs[i].ans_hash);
		else if (qs[i].has_ref)
			bad += (n != qs[i].ref_n || h != qs[i].ref_hash);
		else if (set_ref)
		{
			qs[i].has_ref = true;
			qs[i].ref_n = n;
			qs[i].ref_hash = h;
		}
		sumres += n;
		PQclear(r);
		if (now() - t0 > max_time)
		{
			/* too slow for even one round: time only what was checked */
			nq = i + 1;
			partial = true;
			break;
		}
	}
	PQfinish(c);
	if (set_ref)
		*have_ref = true;

	/* timed rounds, nclients connections at once */
	cl = calloc((size_t) nclients, sizeof(client));
	th = calloc((size_t) nclients, sizeof(pthread_t));
	pids = calloc((size_t) nclients, sizeof(int));
	memset(cpu, 0, sizeof(cpu));
	pthread_barrier_init(&start, NULL, (unsigned) nclients);
	pthread_barrier_init(&end, NULL, (unsigned) nclients);
	for (int t = 0; t < nclients; t++)
	{
		cl[t] = (client) {.setup = setup,.sql = sql,.qs = qs,.nq = nq,.id = t,
		.nclients = nclients,.start = &start,.end = &end,.cpu = cpu,.pids = pids};
		if (pthread_create(&th[t], NULL, client_main, &cl[t]) != 0)
			die("cannot start a client thread", NULL);
	}
	for (int t = 0; t < nclients; t++)
		pthread_join(th[t], NULL);
	el = phase_t1 - phase_t0;
	pthread_barrier_destroy(&start);
	pthread_barrier_destroy(&end);
	for (int t = 0; t < nclients; t++)
		nlat += cl[t].nlat;
	lat = malloc(sizeof(double) * (nlat + 1));
	nlat = 0;
	for (int t = 0; t < nclients; t++)
	{
		if (cl[t].err[0] && bad == 0)
		{
			/* a client could not even connect: report that, not figures */
			row(name, 0, 0, NULL, 0, 0, cl[t].err, NULL);
			bad = -1;
		}
		memcpy(lat + nlat, cl[t].lat, sizeof(double) * cl[t].nlat);
		nlat += cl[t].nlat;
		bad += bad >= 0 ? cl[t].bad : 0;
		partial |= cl[t].partial;
		free(cl[t].lat);
	}
	if (partial)
		snprintf(note, sizeof(note), "(time limit: %d of the queries)", nq);
	if (bad >= 0)
		row(name, nlat, el, lat, nq ? sumres / nq : 0, bad, NULL, partial ? note : NULL);
	if (bad >= 0 && cpu_report)
		cpu_row(name, cpu, (double) nlat);
	bench_cpu_free(&cpu[0]);
	bench_cpu_free(&cpu[1]);
	free(pids);
	free(lat);
	free(cl);
	free(th);
out:
	free(name);
	free(s);
}

/* Record the expected answer of query qid. */
static void
set_answer(bq *qs, int nq, int qid, long n, uint64_t h)
{
	for (int j = 0; j < nq; j++)
	{
		bq		   *q = &qs[(j + qid - 1 + nq) % nq];	/* usually the first try */

		if (q->qid == qid)
		{
			q->has_answer = true;
			q->ans_n = n;
			q->ans_hash = h;
			return;
		}
	}
}

/* Entry point. */
int
main(int argc, char **argv)
{
	const char *qsql = NULL,
			   *asql = NULL,
			   *afile = NULL,
			   *save = NULL;
	const char *paths[64];
	int			npaths = 0,
				nq;
	bq		   *qs;
	PGconn	   *c;
	PGresult   *r;
	bool		have_ref = false,
				header = true;
	int			nclients = 1;

	for (int i = 1; i < argc; i++)
	{
		const char *a = argv[i],
				   *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (v == NULL)
			die("missing value for", a);
		if (strcmp(a, "--queries-sql") == 0)
			qsql = v;
		else if (strcmp(a, "--answers-sql") == 0)
			asql = v;
		else if (strcmp(a, "--answers-file") == 0)
			afile = v;
		else if (strcmp(a, "--save-answers") == 0)
			save = v;
		else if (strcmp(a, "--header") == 0)
			header = atoi(v) != 0;
		else if (strcmp(a, "--clients") == 0)
			nclients = atoi(v) < 1 ? 1 : atoi(v);
		else if (strcmp(a, "--path") == 0 && npaths < 64)
			paths[npaths++] = v;
		else if (strcmp(a, "--dataset") == 0)
			dataset = v;
		else if (strcmp(a, "--min-time") == 0)
			min_time = strtod(v, NULL);
		else if (strcmp(a, "--max-time") == 0)
			max_time = strtod(v, NULL);
		else if (strcmp(a, "--cpu") == 0)
			cpu_report = atoi(v) != 0;
		else if (strcmp(a, "--min-count") == 0)
			min_count = atol(v) < 1 ? 1 : atol(v);
		else if (strcmp(a, "--tsv") == 0)
		{
			if ((tsv = fopen(v, "a")) == NULL)
				die("cannot write", v);
		}
		else
			die("unknown option", a);
		i++;
	}
	if (qsql == NULL || npaths == 0)
		die("usage: bench_query --queries-sql SQL --path 'NAME|SETUP|SQL' ... "
			"[--answers-sql SQL | --answers-file F] [--save-answers F] [--dataset NAME] "
			"[--min-time S] [--max-time S] [--clients N] [--tsv OUT] [--header 0|1] [--min-count N] "
			"[--cpu 0|1]",
			NULL);

	c = connect_env();
	r = PQexec(c, qsql);
	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQnfields(r) < 2)
		die("queries SQL failed", one_line(PQresultErrorMessage(r)));
	nq = PQntuples(r);
	qs = calloc((size_t) nq + 1, sizeof(bq));
	for (int i = 0; i < nq; i++)
	{
		qs[i].qid = atoi(PQgetvalue(r, i, 0));
		qs[i].p1 = strdup(PQgetvalue(r, i, 1));
		qs[i].p2 = PQnfields(r) > 2 && !PQgetisnull(r, i, 2) ? strdup(PQgetvalue(r, i, 2)) : NULL;
	}
	PQclear(r);
	if (asql)
	{
		r = PQexec(c, asql);
		if (PQresultStatus(r) != PGRES_TUPLES_OK || PQnfields(r) != 3)
			die("answers SQL failed", one_line(PQresultErrorMessage(r)));
		for (int i = 0; i < PQntuples(r); i++)
			set_answer(qs, nq, atoi(PQgetvalue(r, i, 0)), atol(PQgetvalue(r, i, 1)),
					   (uint64_t) strtoll(PQgetvalue(r, i, 2), NULL, 10));
		PQclear(r);
	}
	if (afile)
	{
		FILE	   *f = fopen(afile, "r");
		int			qid;
		long		n;
		long long	h;

		if (f == NULL)
			die("cannot read", afile);
		while (fscanf(f, "%d %ld %lld", &qid, &n, &h) == 3)
			set_answer(qs, nq, qid, n, (uint64_t) h);
		fclose(f);
	}
	PQfinish(c);

	if (header)
	{
		printf("\n### Queries through PostgreSQL (%s: %d queries, client-side latency)\n\n",
			   dataset, nq);
		printf("| path | executions | seconds | queries/s | p50 ms | p99 ms | mean result |\n");
		printf("|---|---|---|---|---|---|---|\n");
	}
	fflush(stdout);
	for (int p = 0; p < npaths; p++)
		run_path(paths[p], qs, nq, &have_ref, nclients);
	if (save)
	{
		FILE	   *f = fopen(save, "w");

		if (f == NULL)
			die("cannot write", save);
		for (int i = 0; i < nq; i++)
			if (qs[i].has_answer || qs[i].has_ref)
				fprintf(f, "%d\t%ld\t%lld\n", qs[i].qid,
						qs[i].has_answer ? qs[i].ans_n : qs[i].ref_n,
						(long long) (qs[i].has_answer ? qs[i].ans_hash : qs[i].ref_hash));
		fclose(f);
	}
	if (tsv)
		fclose(tsv);
	return 0;
}
