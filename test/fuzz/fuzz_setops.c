/*
 * fuzz_setops.c - libFuzzer harness of the set algebra (gpx_setops.h) and
 * appends (gpx_append.h): two lists a, b built from the input, each in a
 * codec chosen by the input, and a sorted array c; every operation is
 * compared with a naive reference: union, difference, symmetric difference
 * and their counts (also with an exact-size output buffer), the three
 * encoded as merged (gpx_setop_encode, against gpx_encode), the merge plan,
 * containment, equality, order, hash, rank, the k-way union of (a, b, c as
 * a list, a again), union / difference with the array, and appending c
 * shifted above a's last docID.  Aborts on any disagreement.
 *
 * Input: byte 0: codecs of a, b, c (2 bits each, % 3); byte 1: bit 0-1
 *        how b relates to a (0 built from the input, 1 a copy of a with
 *        its bytes' changes, 2 a prefix of a); then each list as in
 *        fuzz_intersect: a 2-byte start, a 2-byte length, gap bytes.
 */
#include "fuzz_common.h"
#include "gpx_append.h"
#include "gpx_setops.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A list from the input: start, length, gaps (fuzz_intersect's format). */
static uint32_t
build_list(fz_reader *r, size_t maxlen, uint32_t base, uint32_t *out)
{
	uint64_t v = base + ((uint32_t) fz_u8(r) | (uint32_t) fz_u8(r) << 8);
	size_t len = (uint32_t) fz_u8(r) | (uint32_t) fz_u8(r) << 8;
	uint32_t n = 0;

	if (len > maxlen) len = maxlen;
	if (len > r->n) len = r->n;
	if (len == 0 || v > GPX_MAX_DOCID) return 0;
	out[n++] = (uint32_t) v;
	for (size_t i = 1; i < len; i++) {
		uint8_t b = fz_u8(r);
		v += b < 0xE0 ? (uint64_t) (b & 15) + 1 : (uint64_t) (b & 31) << 10;
		if (b >= 0xE0 && (b & 31) == 0) v += 1;
		if (v > GPX_MAX_DOCID) break;
		out[n++] = (uint32_t) v;
	}
	return n;
}

/* Encode docs into an exact-size blob and open it (aborts on failure). */
static uint8_t *
make_blob(int codec, const uint32_t *docs, uint32_t n, gpx_list *l)
{
	size_t cap = gpx_encode_bound(codec, n, n ? docs[n - 1] : 0), len = 0;
	uint8_t *tmp = fz_alloc(cap), *blob;
	uint32_t scratch[GPX_MAX_BLOCK];
	gpx_status st = gpx_encode(codec, docs, n, tmp, cap, &len);

	if (st != GPX_OK) FZ_FAIL("encode: %s", gpx_status_str(st));
	blob = fz_alloc(len);
	memcpy(blob, tmp, len);
	free(tmp);
	st = gpx_validate(blob, len, scratch);
	if (st != GPX_OK) FZ_FAIL("validate: %s", gpx_status_str(st));
	st = gpx_open(l, blob, len);
	if (st != GPX_OK) FZ_FAIL("open: %s", gpx_status_str(st));
	return blob;
}

/* Naive a op b (0 union, 1 difference, 2 symmetric difference). */
static uint32_t
ref_op(int op, const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb,
	   uint32_t *out)
{
	uint32_t i = 0, j = 0, k = 0;

	while (i < na || j < nb) {
		if (j >= nb || (i < na && a[i] < b[j]))
			out[k++] = a[i++];
		else if (i >= na || b[j] < a[i]) {
			if (op != 1) out[k++] = b[j];
			j++;
		} else {
			if (op == 0) out[k++] = a[i];
			i++; j++;
		}
	}
	return k;
}

/* Naive lexicographic comparison, a proper prefix first. */
static int
ref_cmp(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb)
{
	uint32_t m = na < nb ? na : nb;

	for (uint32_t i = 0; i < m; i++)
		if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
	return na == nb ? 0 : (na < nb ? -1 : 1);
}

/* Check the two-list operations on (a, b). */
static void
check_pair(const gpx_list *la, const uint32_t *a, uint32_t na,
		   const gpx_list *lb, const uint32_t *b, uint32_t nb)
{
	uint32_t *ref = fz_alloc(((size_t) na + nb + 1) * 4);
	uint32_t *out = fz_alloc(((size_t) na + nb + 2) * 4);

	for (int op = 0; op < 3; op++) {
		uint32_t rn = ref_op(op, a, na, b, nb, ref), n = 0, c = 0;
		gpx_status st;

		/* exact room, with a guard after it */
		out[rn] = 0xDEADBEEF;
		st = op == 0 ? gpx_union(la, lb, out, rn, &n) :
			op == 1 ? gpx_difference(la, lb, out, rn, &n) :
			gpx_symdiff(la, lb, out, rn, &n);
		if (st != GPX_OK || n != rn || memcmp(out, ref, (size_t) rn * 4) != 0)
			FZ_FAIL("op %d n %u ref %u (%u, %u): %s", op, n, rn, na, nb, gpx_status_str(st));
		if (out[rn] != 0xDEADBEEF)
			FZ_FAIL("op %d wrote past the exact room", op);
		if (rn > 0) {
			st = op == 0 ? gpx_union(la, lb, out, rn - 1, &n) :
				op == 1 ? gpx_difference(la, lb, out, rn - 1, &n) :
				gpx_symdiff(la, lb, out, rn - 1, &n);
			FZ_REQUIRE(st == GPX_E_NOSPACE, "op %d short room: %s", op, gpx_status_str(st));
		}
		st = op == 0 ? gpx_union_count(la, lb, &c) :
			op == 1 ? gpx_difference_count(la, lb, &c) : gpx_symdiff_count(la, lb, &c);
		FZ_REQUIRE(st == GPX_OK && c == rn, "count op %d: %u ref %u", op, c, rn);

		/* encoded as merged, in a's codec: gpx_encode's bytes, in its bound */
		{
			size_t cap = gpx_setop_encode_bound((gpx_setop) op, la, lb, la->codec),
				   wcap = gpx_encode_bound(la->codec, rn, rn ? ref[rn - 1] : 0),
				   len = 0, wlen = 0;
			uint8_t *got = fz_alloc(cap), *want = fz_alloc(wcap);

			st = gpx_setop_encode((gpx_setop) op, la, lb, la->codec, got, cap, &len, &n);
			FZ_REQUIRE(gpx_encode(la->codec, ref, rn, want, wcap, &wlen) == GPX_OK, "encode ref");
			if (st != GPX_OK || n != rn || len != wlen || memcmp(got, want, wlen) != 0)
				FZ_FAIL("op %d encoded: n %u ref %u, %zu bytes, gpx_encode %zu: %s",
						op, n, rn, len, wlen, gpx_status_str(st));
			free(got);
			free(want);
		}
	}

	/* containment, equality, order, hash */
	{
		uint32_t i = 0;
		bool sub = true;

		for (uint32_t j = 0; j < nb && sub; j++) {
			while (i < na && a[i] < b[j]) i++;
			sub = i < na && a[i] == b[j];
		}
		FZ_REQUIRE(gpx_contains_all(la, lb) == sub, "contains_all %d", (int) sub);
	}
	{
		int want = ref_cmp(a, na, b, nb);

		FZ_REQUIRE(gpx_compare(la, lb) == want, "compare want %d", want);
		FZ_REQUIRE(gpx_compare(lb, la) == -want, "compare swapped");
		FZ_REQUIRE(gpx_equal(la, lb) == (want == 0), "equal");
		if (want == 0)
			FZ_REQUIRE(gpx_hash(la, 3) == gpx_hash(lb, 3), "hash of equal lists");
	}

	/* the plan: contiguous segments naming the blocks that hold each docID */
	{
		uint64_t cap = gpx_mplan_max(la, lb);
		gpx_mseg *segs = fz_alloc((size_t) (cap + 1) * sizeof(gpx_mseg));
		uint32_t ns = 0;
		gpx_status st = gpx_merge_plan(la, lb, segs, cap, &ns);
		const uint32_t *docs[2] = {a, b};
		uint32_t nd[2] = {na, nb};
		const gpx_list *ls[2] = {la, lb};

		FZ_REQUIRE(st == GPX_OK && ns <= cap, "plan: %s", gpx_status_str(st));
		for (uint32_t s = 1; s < ns; s++)
			FZ_REQUIRE(segs[s].lo == segs[s - 1].hi + 1, "plan not contiguous at %u", s);
		for (int x = 0; x < 2; x++) {
			uint32_t s = 0;

			for (uint32_t i = 0; i < nd[x]; i++) {
				while (s < ns && segs[s].hi < docs[x][i]) s++;
				FZ_REQUIRE(s < ns && segs[s].lo <= docs[x][i] &&
						   segs[s].blk[x] == i >> ls[x]->log2_block,
						   "plan: list %d element %u", x, i);
			}
		}
		free(segs);
	}

	/* rank at the elements of b and around them */
	for (uint32_t j = 0; j < nb && j < 64; j++) {
		uint32_t x = b[j] + (j & 1);
		uint32_t want = x >= GPX_MAX_DOCID ? na : ref_lower_bound(a, na, x + 1);

		FZ_REQUIRE(gpx_rank(la, x) == want, "rank(%u) want %u", x, want);
	}
	free(ref);
	free(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_reader r = {data, size};
	uint8_t b0 = fz_u8(&r), b1 = fz_u8(&r);
	int ca = 1 + (b0 & 3) % 3, cb = 1 + ((b0 >> 2) & 3) % 3, cc = 1 + ((b0 >> 4) & 3) % 3;
	size_t share = r.n / 3;
	uint32_t *a = fz_alloc((r.n + 1) * 4), *b = fz_alloc((r.n + 1) * 4),
			 *c = fz_alloc((r.n + 1) * 4);
	uint32_t na, nb, nc;
	gpx_list la, lb, lc;
	uint8_t *ba, *bb, *bc;

	na = build_list(&r, share > 4 ? share - 4 : 0, 0, a);
	switch (b1 & 3) {
	case 1:						/* a copy of a with some docIDs moved */
		memcpy(b, a, (size_t) na * 4);
		nb = na;
		for (uint32_t i = 0; i < nb && r.n > 0; i += 1 + fz_u8(&r) % 16)
			b[i] = (b[i] ^ (1u << (fz_u8(&r) % 12))) & GPX_MAX_DOCID;
		nb = ref_sort_unique(b, nb);
		break;
	case 2:						/* a prefix of a */
		nb = na ? fz_u32(&r) % (na + 1) : 0;
		memcpy(b, a, (size_t) nb * 4);
		break;
	default:
		nb = build_list(&r, share > 4 ? share - 4 : 0, (b1 & 0x80) ? 0 : (uint32_t) (b1 & 0x70) << 8, b);
		break;
	}
	nc = build_list(&r, r.n, 0, c);

	ba = make_blob(ca, a, na, &la);
	bb = make_blob(cb, b, nb, &lb);
	bc = make_blob(cc, c, nc, &lc);
	check_pair(&la, a, na, &lb, b, nb);
	check_pair(&lb, b, nb, &lc, c, nc);

	/* k-way union of (a, b, c, a) and its count */
	{
		const gpx_list *ls[4] = {&la, &lb, &lc, &la};
		size_t wb = gpx_union_many_work(4);
		void *work = fz_alloc(wb);
		uint32_t *ref = fz_alloc(((size_t) na + nb + nc + 1) * 4),
				 *tmp = fz_alloc(((size_t) na + nb + nc + 1) * 4),
				 *out = fz_alloc(((size_t) na + nb + nc + 1) * 4);
		uint32_t rn = ref_op(0, a, na, b, nb, tmp), n = 0;
		gpx_status st;

		rn = ref_op(0, tmp, rn, c, nc, ref);
		st = gpx_union_many(ls, 4, work, wb, out, rn, &n);
		if (st != GPX_OK || n != rn || memcmp(out, ref, (size_t) rn * 4) != 0)
			FZ_FAIL("union_many n %u ref %u: %s", n, rn, gpx_status_str(st));
		st = gpx_union_many(ls, 4, work, wb, NULL, 0, &n);
		FZ_REQUIRE(st == GPX_OK && n == rn, "union_many count %u ref %u", n, rn);

		/* a with c as an array */
		rn = ref_op(0, a, na, c, nc, ref);
		st = gpx_union_array(&la, c, nc, out, na + nc, &n);
		if (st != GPX_OK || n != rn || memcmp(out, ref, (size_t) rn * 4) != 0)
			FZ_FAIL("union_array n %u ref %u: %s", n, rn, gpx_status_str(st));
		rn = ref_op(1, a, na, c, nc, ref);
		st = gpx_difference_array(&la, c, nc, out, na, &n);
		if (st != GPX_OK || n != rn || memcmp(out, ref, (size_t) rn * 4) != 0)
			FZ_FAIL("difference_array n %u ref %u: %s", n, rn, gpx_status_str(st));
		free(work); free(ref); free(tmp); free(out);
	}

	/* append c, shifted above a's last docID, to a: like a fresh encode */
	{
		uint32_t shift = na ? a[na - 1] + 1 : 0, m = 0;
		uint32_t *add = fz_alloc(((size_t) nc + 1) * 4), *all;
		uint8_t *out, *fresh;
		uint32_t *scratch;
		size_t olen = 0, flen = 0, cap, fcap;
		uint64_t sc;
		gpx_status st;

		for (uint32_t i = 0; i < nc; i++) {
			uint64_t v = (uint64_t) c[i] + shift;

			if (v > GPX_MAX_DOCID) break;
			add[m++] = (uint32_t) v;
		}
		all = fz_alloc(((size_t) na + m + 1) * 4);
		memcpy(all, a, (size_t) na * 4);
		memcpy(all + na, add, (size_t) m * 4);
		sc = gpx_append_scratch(&la, m, m ? add[m - 1] : 0);
		cap = gpx_append_bound(&la, m, m ? add[m - 1] : 0);
		scratch = fz_alloc((size_t) (sc + 1) * 4);
		out = fz_alloc(cap);
		st = gpx_append(&la, add, m, scratch, sc, out, cap, &olen);
		FZ_REQUIRE(st == GPX_OK, "append %u + %u: %s", na, m, gpx_status_str(st));
		fcap = gpx_encode_bound(ca, na + m, na + m ? all[na + m - 1] : 0);
		fresh = fz_alloc(fcap);
		st = gpx_encode(ca, all, na + m, fresh, fcap, &flen);
		FZ_REQUIRE(st == GPX_OK && flen == olen && memcmp(out, fresh, flen) == 0,
				   "append %u + %u differs from a fresh encode (%zu vs %zu bytes)",
				   na, m, olen, flen);
		if (m > 0 && na > 0) {
			/* not above the last docID: refused */
			uint32_t low = a[na - 1];

			st = gpx_append(&la, &low, 1, scratch, sc, out, cap, &olen);
			FZ_REQUIRE(st == GPX_E_UNSORTED, "append of the last docID: %s", gpx_status_str(st));
		}
		free(add); free(all); free(scratch); free(out); free(fresh);
	}

	free(ba); free(bb); free(bc);
	free(a); free(b); free(c);
	return 0;
}
