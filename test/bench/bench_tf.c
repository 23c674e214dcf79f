/*
 * bench_tf.c - Simple-8b term-frequency coding (src/codec/gpx_simple8b.c):
 * bits per frequency and one-thread decode speed of left-greedy and optimal
 * packing, frequencies stored as tf - 1 (base 1) and as is (base 0), in
 * blocks of 128 (pfor's docID blocks) and 256 (lrc's and qs's), on the
 * GOV2-calibrated frequencies of test/gen/gpx_gen --tf and on real text.
 *
 *   bench_tf [--min-time S] [--rounds N]
 *            [--synth NAME=DIR]... [--stop FILE|-] [--corpus NAME=FILE]...
 *
 * --synth: a gpx_gen output directory written with --tf (tfs.copy: one
 * line per term, its frequencies in docID order).  --corpus: PostgreSQL
 * COPY text "doc_id<TAB>path<TAB>body" as test/bench/gpx_corpus writes it;
 * a term is a maximal run of ASCII letters, digits, '_' and non-ASCII
 * bytes, ASCII lower-cased; the stop words of the last --stop before it
 * are dropped (one per line, e.g. PostgreSQL's english.stop; '-' for none);
 * tf = occurrences of the term in the document; every term's list is in
 * document order.  Every list is coded in full, however short (a list of
 * one frequency costs one 64-bit word).
 *
 * Per dataset: the frequency statistics, then per (form, block, packing)
 * bits per frequency over all lists and over lists of >= 128 postings,
 * decode speed in million frequencies per second of thread CPU time (block
 * by block with gpx_s8b_decode_block, as a reader aligned with the docID
 * blocks does; the best of --rounds passes, each configuration timed in
 * every round in turn; a checksum consumes the values) and encode speed.  Every encoding
 * is validated and decoded back against its input before it is timed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpx_simple8b.h"
#include "bench_util.h"
#include "gen_common.h"

/* A dataset: nlists frequency lists, list i = tf[off[i] .. off[i + 1]). */
typedef struct dataset
{
	char		name[64];
	char		source[256];
	uint64_t	nlists;
	uint64_t   *off;
	uint32_t   *tf;
	uint64_t	ndocs;
} dataset;

/* One coding configuration and its results. */
typedef struct config
{
	uint32_t	base;
	uint32_t	block;
	gpx_s8b_packing pack;
	uint8_t    *buf;			/* all lists' sections, one after another */
	uint64_t   *boff;			/* byte offset of list i's section */
	uint64_t	bytes;
	uint64_t	bytes_long;		/* lists of >= 128 postings */
	double		best_dec;		/* seconds of the fastest decode pass */
	double		enc;			/* seconds of the encode pass */
	uint64_t	check;			/* checksum of a decode pass */
} config;

static double opt_min_time = 0.3;
static int	opt_rounds = 5;

/*
 * Seconds of CPU time of this thread: the speeds are per thread, and on a
 * shared machine wall time would also count the time others ran.
 */
static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Print a message and exit 2. */
static void
die(const char *msg, const char *arg)
{
	fprintf(stderr, "bench_tf: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	exit(2);
}

/* malloc or die. */
static void *
xmalloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (p == NULL)
		die("out of memory", NULL);
	return p;
}

/* realloc or die. */
static void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		die("out of memory", NULL);
	return p;
}

/* --------------------------------------------------------- synthetic -- */

/* Load DIR/tfs.copy written by gpx_gen --tf. */
static void
load_synth(dataset *d, const char *dir)
{
	char		path[4096],
			   *line = NULL;
	size_t		cap = 0,
				tcap = 0,
				lcap = 1024;
	FILE	   *f;
	uint64_t	n = 0;

	snprintf(path, sizeof(path), "%s/tfs.copy", dir);
	snprintf(d->source, sizeof(d->source), "%s (gpx_gen --tf)", dir);
	f = fopen(path, "r");
	if (f == NULL)
		die("cannot read (was gpx_gen run with --tf?)", path);
	d->off = xmalloc(sizeof(uint64_t) * lcap);
	d->off[0] = 0;
	while (gen_getline(f, &line, &cap) >= 0)
	{
		const char *p = strchr(line, '\t');
		uint32_t   *tmp = NULL;
		size_t		tmpcap = 0;
		long		k;

		if (p == NULL)
			die("bad line in", path);
		p++;
		k = gen_parse_array(&p, &tmp, &tmpcap);
		if (k < 0)
			die("bad array in", path);
		if (n + (uint64_t) k > tcap)
		{
			tcap = (n + (uint64_t) k) * 2;
			d->tf = xrealloc(d->tf, sizeof(uint32_t) * tcap);
		}
		if (k > 0)
			memcpy(d->tf + n, tmp, sizeof(uint32_t) * (size_t) k);
		free(tmp);
		n += (uint64_t) k;
		if (d->nlists + 2 > lcap)
		{
			lcap *= 2;
			d->off = xrealloc(d->off, sizeof(uint64_t) * lcap);
		}
		d->off[++d->nlists] = n;
	}
	free(line);
	fclose(f);
}

/* ------------------------------------------------------------ corpus -- */

/* Interned terms: open addressing over (hash, arena offset, length). */
typedef struct termtab
{
	uint64_t   *slot;			/* 0 empty, else term id + 1 */
	uint64_t	mask;
	uint64_t   *hash;			/* per term */
	uint64_t   *soff;			/* per term: offset in arena */
	uint32_t   *slen;
	bool	   *stop;
	uint64_t	nterms,
				cap;
	char	   *arena;
	uint64_t	alen,
				acap;
} termtab;

/* FNV-1a of s[0..n). */
static uint64_t
str_hash(const char *s, size_t n)
{
	uint64_t	h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
	{
		h ^= (unsigned char) s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* Id of term s[0..n), interned if new. */
static uint64_t
term_id(termtab *t, const char *s, size_t n)
{
	uint64_t	h = str_hash(s, n),
				i;

	if ((t->nterms + 1) * 2 > t->mask + 1)
	{
		uint64_t	nm = t->mask * 2 + 1;

		free(t->slot);
		t->slot = calloc(nm + 1, sizeof(uint64_t));
		if (t->slot == NULL)
			die("out of memory", NULL);
		t->mask = nm;
		for (uint64_t k = 0; k < t->nterms; k++)
		{
			i = t->hash[k] & nm;
			while (t->slot[i])
				i = (i + 1) & nm;
			t->slot[i] = k + 1;
		}
	}
	for (i = h & t->mask; t->slot[i]; i = (i + 1) & t->mask)
	{
		uint64_t	k = t->slot[i] - 1;

		if (t->hash[k] == h && t->slen[k] == n && memcmp(t->arena + t->soff[k], s, n) == 0)
			return k;
	}
	if (t->nterms == t->cap)
	{
		t->cap = t->cap ? 2 * t->cap : 4096;
		t->hash = xrealloc(t->hash, sizeof(uint64_t) * t->cap);
		t->soff = xrealloc(t->soff, sizeof(uint64_t) * t->cap);
		t->slen = xrealloc(t->slen, sizeof(uint32_t) * t->cap);
		t->stop = xrealloc(t->stop, sizeof(bool) * t->cap);
	}
	if (t->alen + n > t->acap)
	{
		t->acap = (t->alen + n) * 2 + 65536;
		t->arena = xrealloc(t->arena, t->acap);
	}
	memcpy(t->arena + t->alen, s, n);
	t->hash[t->nterms] = h;
	t->soff[t->nterms] = t->alen;
	t->slen[t->nterms] = (uint32_t) n;
	t->stop[t->nterms] = false;
	t->alen += n;
	t->slot[i] = t->nterms + 1;
	return t->nterms++;
}

/* Whether byte c belongs to a term. */
static inline bool
term_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		c == '_' || c >= 0x80;
}

/* qsort comparator of uint64. */
static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	x = *(const uint64_t *) a,
				y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* Load a gpx_corpus COPY file into per-term frequency lists. */
static void
load_corpus(dataset *d, const char *file, const char *stopfile)
{
	termtab		t;
	FILE	   *f;
	char	   *line = NULL,
				tok[256];
	size_t		cap = 0,
				pcap = 1 << 20,
				dcap = 4096;
	uint64_t   *pairs,			/* (term << 32 | tf) per posting, doc order */
			   *doc,
				np = 0,
				nstop = 0;

	memset(&t, 0, sizeof(t));
	t.mask = 4095;
	t.slot = calloc(4096, sizeof(uint64_t));
	snprintf(d->source, sizeof(d->source), "%s%s%s", file,
			 stopfile ? ", stop words " : "", stopfile ? stopfile : "");
	if (stopfile)
	{
		FILE	   *s = fopen(stopfile, "r");

		if (s == NULL)
			die("cannot read", stopfile);
		while (gen_getline(s, &line, &cap) >= 0)
			if (line[0])
			{
				uint64_t	id = term_id(&t, line, strlen(line));

				t.stop[id] = true;
				nstop++;
			}
		fclose(s);
	}
	f = fopen(file, "r");
	if (f == NULL)
		die("cannot read", file);
	pairs = xmalloc(sizeof(uint64_t) * pcap);
	doc = xmalloc(sizeof(uint64_t) * dcap);
	while (gen_getline(f, &line, &cap) >= 0)
	{
		char	   *body = strchr(line, '\t');
		uint64_t	nd = 0;

		if (body == NULL || (body = strchr(body + 1, '\t')) == NULL)
			die("bad line (not doc_id<TAB>path<TAB>body) in", file);
		d->ndocs++;
		for (const unsigned char *p = (const unsigned char *) body + 1; *p;)
		{
			size_t		n = 0;

			if (!term_byte(*p))
			{
				p++;
				continue;
			}
			while (term_byte(*p))
			{
				if (n < sizeof(tok))
					tok[n++] = (char) ((*p >= 'A' && *p <= 'Z') ? *p + 32 : *p);
				p++;
			}
			{
				uint64_t	id = term_id(&t, tok, n);

				if (t.stop[id])
					continue;
				if (nd == dcap)
				{
					dcap *= 2;
					doc = xrealloc(doc, sizeof(uint64_t) * dcap);
				}
				doc[nd++] = id;
			}
		}
		qsort(doc, nd, sizeof(uint64_t), cmp_u64);
		for (uint64_t i = 0; i < nd;)
		{
			uint64_t	j = i;

			while (j < nd && doc[j] == doc[i])
				j++;
			if (np == pcap)
			{
				pcap *= 2;
				pairs = xrealloc(pairs, sizeof(uint64_t) * pcap);
			}
			pairs[np++] = (doc[i] << 32) | (j - i > 0x7FFFFFFF ? 0x7FFFFFFF : j - i);
			i = j;
		}
	}
	free(line);
	fclose(f);
	/* group by term, keeping document order (counting sort) */
	{
		uint64_t   *cnt = calloc(t.nterms + 1, sizeof(uint64_t)),
					nl = 0;
		uint32_t   *map = xmalloc(sizeof(uint32_t) * (t.nterms + 1));

		if (cnt == NULL)
			die("out of memory", NULL);
		for (uint64_t i = 0; i < np; i++)
			cnt[pairs[i] >> 32]++;
		for (uint64_t k = 0; k < t.nterms; k++)
			if (cnt[k])
				map[k] = (uint32_t) nl++;
		d->nlists = nl;
		d->off = xmalloc(sizeof(uint64_t) * (nl + 1));
		d->tf = xmalloc(sizeof(uint32_t) * (np + 1));
		d->off[0] = 0;
		for (uint64_t k = 0, l = 0; k < t.nterms; k++)
			if (cnt[k])
			{
				d->off[l + 1] = d->off[l] + cnt[k];
				l++;
			}
		memset(cnt, 0, sizeof(uint64_t) * (t.nterms + 1));
		for (uint64_t i = 0; i < np; i++)
		{
			uint64_t	k = pairs[i] >> 32;
			uint32_t	l = map[k];

			d->tf[d->off[l] + cnt[k]++] = (uint32_t) (pairs[i] & 0xFFFFFFFF);
		}
		free(cnt);
		free(map);
	}
	free(pairs);
	free(doc);
	free(t.slot);
	free(t.hash);
	free(t.soff);
	free(t.slen);
	free(t.stop);
	free(t.arena);
	(void) nstop;
}

/* ------------------------------------------------------------- bench -- */

/* Encode every list of d with c; checks the encoding; times it. */
static void
encode_all(const dataset *d, config *c)
{
	uint64_t	n = d->off[d->nlists];
	size_t		cap = gpx_s8b_encode_bound((uint32_t) (n > 0xFFFFFFFFu ? 0xFFFFFFFFu : n));
	uint64_t	pos = 0;
	uint32_t   *back = xmalloc(sizeof(uint32_t) * (GPX_S8B_MAX_BLOCK + 240));
	double		t0;

	if (n > 0xFFFFFFFFu)
		die("dataset too large", d->name);
	c->buf = xmalloc(cap + 8);
	c->boff = xmalloc(sizeof(uint64_t) * (d->nlists + 1));
	c->bytes_long = 0;
	t0 = cpu_now();
	for (uint64_t i = 0; i < d->nlists; i++)
	{
		uint32_t	len = (uint32_t) (d->off[i + 1] - d->off[i]);
		size_t		out;
		gpx_status	st = gpx_s8b_encode(d->tf + d->off[i], len, c->block, c->base, c->pack,
										c->buf + pos, cap - pos, &out);

		if (st != GPX_OK)
			die("encode failed", gpx_status_str(st));
		c->boff[i] = pos;
		pos += out;
		if (len >= 128)
			c->bytes_long += out;
	}
	c->enc = cpu_now() - t0;
	c->boff[d->nlists] = pos;
	c->bytes = pos;
	/* check: valid, and decodes to the input */
	for (uint64_t i = 0; i < d->nlists; i++)
	{
		uint32_t	len = (uint32_t) (d->off[i + 1] - d->off[i]);
		const uint8_t *p = c->buf + c->boff[i];
		size_t		sl = c->boff[i + 1] - c->boff[i];

		if (gpx_s8b_validate(p, sl, len, c->block, c->base) != GPX_OK)
			die("an encoding does not validate", d->name);
		for (uint32_t k = 0; k < len; k += c->block)
		{
			uint32_t	cnt = len - k < c->block ? len - k : c->block;

			p += gpx_s8b_decode_block(p, cnt, c->base, back);
			if (memcmp(back, d->tf + d->off[i] + k, 4 * (size_t) cnt) != 0)
				die("an encoding does not decode to its input", d->name);
		}
	}
	free(back);
}

/* One decode pass over every list, block by block; returns the checksum. */
static uint64_t
decode_pass(const dataset *d, const config *c, uint32_t *buf)
{
	uint64_t	sum = 0;

	for (uint64_t i = 0; i < d->nlists; i++)
	{
		uint32_t	len = (uint32_t) (d->off[i + 1] - d->off[i]);
		const uint8_t *p = c->buf + c->boff[i];

		for (uint32_t k = 0; k < len; k += c->block)
		{
			uint32_t	cnt = len - k < c->block ? len - k : c->block;

			p += gpx_s8b_decode_block(p, cnt, c->base, buf);
			sum += buf[0] + buf[cnt - 1];
		}
	}
	return sum;
}

/* Share (%) of postings with tf <= k. */
static double
share_le(const dataset *d, uint32_t k)
{
	uint64_t	n = d->off[d->nlists],
				c = 0;

	for (uint64_t i = 0; i < n; i++)
		c += d->tf[i] <= k;
	return n ? 100.0 * c / n : 0;
}

/* Run every configuration on d and print its section of the report. */
static void
bench_dataset(const dataset *d)
{
	static const uint32_t bases[2] = {1, 0};
	static const uint32_t blocks[2] = {128, 256};
	config		cf[8];
	int			nc = 0;
	uint64_t	n = d->off[d->nlists],
				nlong = 0,
				sumtf = 0,
				maxtf = 0,
				sink = 0;
	uint32_t   *buf = xmalloc(sizeof(uint32_t) * (GPX_S8B_MAX_BLOCK + 240));

	for (uint64_t i = 0; i < d->nlists; i++)
		if (d->off[i + 1] - d->off[i] >= 128)
			nlong += d->off[i + 1] - d->off[i];
	for (uint64_t i = 0; i < n; i++)
	{
		sumtf += d->tf[i];
		if (d->tf[i] > maxtf)
			maxtf = d->tf[i];
	}
	printf("### %s\n\n", d->name);
	printf("- source: %s\n", d->source);
	if (d->ndocs)
		printf("- documents: %llu\n", (unsigned long long) d->ndocs);
	printf("- lists: %llu; frequencies: %llu (%.1f %% in lists of >= 128)\n",
		   (unsigned long long) d->nlists, (unsigned long long) n, n ? 100.0 * nlong / n : 0.0);
	printf("- tf = 1: %.1f %%; tf <= 3: %.1f %%; mean tf %.2f; max tf %llu\n\n",
		   share_le(d, 1), share_le(d, 3), n ? (double) sumtf / n : 0.0,
		   (unsigned long long) maxtf);
	if (n == 0)
	{
		free(buf);
		return;
	}

	for (int b = 0; b < 2; b++)
		for (int k = 0; k < 2; k++)
			for (int p = 0; p < 2; p++)
			{
				config	   *c = &cf[nc++];

				memset(c, 0, sizeof(*c));
				c->base = bases[b];
				c->block = blocks[k];
				c->pack = p ? GPX_S8B_OPTIMAL : GPX_S8B_GREEDY;
				c->best_dec = 1e30;
				encode_all(d, c);
				c->check = decode_pass(d, c, buf);
			}
	/* rounds: every configuration in turn, each for >= min_time / rounds */
	for (int r = 0; r < opt_rounds; r++)
		for (int i = 0; i < nc; i++)
		{
			double		t0 = cpu_now(),
						el;
			int			passes = 0;

			do
			{
				uint64_t	s = decode_pass(d, &cf[i], buf);

				if (s != cf[i].check)
					die("decode checksum differs between passes", d->name);
				sink += s;
				passes++;
				el = cpu_now() - t0;
			} while (el < opt_min_time / opt_rounds);
			if (el / passes < cf[i].best_dec)
				cf[i].best_dec = el / passes;
		}

	printf("| stored | block | packing | bits/tf (all lists) | bits/tf (lists >= 128) | words vs greedy | decode Mtf/s | encode Mtf/s |\n");
	printf("|---|---:|---|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < nc; i++)
	{
		config	   *c = &cf[i];
		config	   *g = &cf[i & ~1];	/* the greedy run of the same form and block */

		printf("| %s | %u | %s | %.3f | %.3f | %+.2f %% | %.0f | %.1f |\n",
			   c->base ? "tf - 1" : "tf (as is)", c->block,
			   c->pack == GPX_S8B_OPTIMAL ? "optimal" : "greedy",
			   8.0 * c->bytes / n, nlong ? 8.0 * c->bytes_long / nlong : 0.0,
			   100.0 * ((double) c->bytes - (double) g->bytes) / (double) g->bytes,
			   n / c->best_dec / 1e6, n / c->enc / 1e6);
	}
	printf("\n");
	for (int i = 0; i < nc; i++)
	{
		free(cf[i].buf);
		free(cf[i].boff);
	}
	free(buf);
	if (sink == 42)
		printf("(checksum)\n");
}

/* Print the usage text and exit 2. */
static void
usage(void)
{
	fprintf(stderr,
			"usage: bench_tf [--min-time S] [--rounds N] [--synth NAME=DIR]...\n"
			"                [--stop FILE|-] [--corpus NAME=FILE]...\n");
	exit(2);
}

/* Entry point: load each dataset in turn and benchmark it. */
int
main(int argc, char **argv)
{
	const char *stop = NULL;
	int			nds = 0;

	for (int i = 1; i < argc; i++)
	{
		const char *a = argv[i];

		if (i + 1 >= argc)
			usage();
		if (strcmp(a, "--min-time") == 0)
			opt_min_time = atof(argv[++i]);
		else if (strcmp(a, "--rounds") == 0)
			opt_rounds = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1;
		else if (strcmp(a, "--stop") == 0)
		{
			stop = argv[++i];
			if (strcmp(stop, "-") == 0)
				stop = NULL;
		}
		else if (strcmp(a, "--synth") == 0 || strcmp(a, "--corpus") == 0)
		{
			const char *spec = argv[++i],
					   *eq = strchr(spec, '=');
			dataset		d;

			if (eq == NULL || eq == spec || (size_t) (eq - spec) >= sizeof(d.name))
				usage();
			memset(&d, 0, sizeof(d));
			memcpy(d.name, spec, (size_t) (eq - spec));
			if (a[2] == 's')
				load_synth(&d, eq + 1);
			else
				load_corpus(&d, eq + 1, stop);
			bench_dataset(&d);
			fflush(stdout);
			free(d.off);
			free(d.tf);
			nds++;
		}
		else
			usage();
	}
	if (nds == 0)
		usage();
	return 0;
}
