/*
 * gpx_corpus.c - turn a list of files into PostgreSQL COPY text rows
 * "doc_id<TAB>path<TAB>body" for a documents table: one file, one document.
 *
 *   find DIR -type f | LC_ALL=C sort | gpx_corpus [--html] [--max-bytes N]
 *                                                 [--strip-prefix P] > docs.copy
 *
 * --html strips tags (and the contents of <script> and <style>) and decodes
 * the common character entities.  Files holding a NUL byte are skipped as
 * binary; invalid UTF-8 bytes become '?'; runs of white space become one
 * space; a body longer than --max-bytes (default 262144, which keeps every
 * tsvector under PostgreSQL's 1 MB limit) is cut at a character boundary.
 * doc_ids count from 1 in input order.  A summary goes to stderr:
 * "gpx_corpus: N documents, N skipped (binary/unreadable), N truncated, N bytes".
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Read a whole file; NULL if unreadable. */
static char *
slurp(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	char	   *buf = NULL;
	size_t		cap = 0,
				n = 0,
				r;

	if (f == NULL)
		return NULL;
	do
	{
		if (cap - n < 65536)
		{
			cap = cap ? cap * 2 : 131072;
			buf = realloc(buf, cap + 1);
			if (buf == NULL)
			{
				fclose(f);
				return NULL;
			}
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r > 0);
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Length of a valid UTF-8 sequence at s (of at most n bytes), or 0. */
static int
utf8_len(const unsigned char *s, size_t n)
{
	int			k;
	uint32_t	cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xE0) == 0xC0)
		k = 2, cp = s[0] & 0x1F;
	else if ((s[0] & 0xF0) == 0xE0)
		k = 3, cp = s[0] & 0x0F;
	else if ((s[0] & 0xF8) == 0xF0)
		k = 4, cp = s[0] & 0x07;
	else
		return 0;
	if ((size_t) k > n)
		return 0;
	for (int i = 1; i < k; i++)
	{
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((k == 2 && cp < 0x80) || (k == 3 && cp < 0x800) || (k == 4 && cp < 0x10000) ||
		cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return k;
}

/* Append the UTF-8 encoding of code point cp to out. */
static size_t
put_utf8(char *out, uint32_t cp)
{
	if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		cp = '?';
	if (cp < 0x80)
		return out[0] = (char) cp, 1;
	if (cp < 0x800)
		return out[0] = (char) (0xC0 | (cp >> 6)), out[1] = (char) (0x80 | (cp & 0x3F)), 2;
	if (cp < 0x10000)
		return out[0] = (char) (0xE0 | (cp >> 12)), out[1] = (char) (0x80 | ((cp >> 6) & 0x3F)),
			out[2] = (char) (0x80 | (cp & 0x3F)), 3;
	out[0] = (char) (0xF0 | (cp >> 18));
	out[1] = (char) (0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char) (0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char) (0x80 | (cp & 0x3F));
	return 4;
}

/* Strip HTML tags and decode entities in place; returns the new length. */
static size_t
strip_html(char *s, size_t n)
{
	static const struct
	{
		const char *name;
		uint32_t	cp;
	}			ents[] = {
		{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''},
		{"nbsp", ' '}, {"mdash", 0x2014}, {"ndash", 0x2013}, {"hellip", 0x2026},
		{"copy", 0xA9}, {"rsquo", 0x2019}, {"lsquo", 0x2018}, {"rdquo", 0x201D},
		{"ldquo", 0x201C}, {"times", 0xD7}, {NULL, 0}};
	size_t		i = 0,
				o = 0;

	while (i < n)
	{
		if (s[i] == '<')
		{
			bool		skip_body = strncasecmp(s + i, "<script", 7) == 0 ||
				strncasecmp(s + i, "<style", 6) == 0;
			const char *end = memchr(s + i, '>', n - i);

			if (end == NULL)
				break;
			i = (size_t) (end - s) + 1;
			if (skip_body)
			{
				const char *close = NULL;

				for (size_t j = i; j + 1 < n; j++)
					if (s[j] == '<' && s[j + 1] == '/' &&
						(strncasecmp(s + j, "</script", 8) == 0 ||
						 strncasecmp(s + j, "</style", 7) == 0))
					{
						close = s + j;
						break;
					}
				if (close == NULL)
					break;
				end = memchr(close, '>', n - (size_t) (close - s));
				if (end == NULL)
					break;
				i = (size_t) (end - s) + 1;
			}
			s[o++] = ' ';		/* a tag separates words */
		}
		else if (s[i] == '&')
		{
			const char *semi = memchr(s + i, ';', n - i < 12 ? n - i : 12);
			bool		done = false;

			if (semi)
			{
				size_t		len = (size_t) (semi - (s + i)) - 1;
				const char *name = s + i + 1;
				uint32_t	cp = 0;

				if (len > 1 && name[0] == '#')
				{
					char	   *endp;

					cp = (name[1] == 'x' || name[1] == 'X') ?
						(uint32_t) strtoul(name + 2, &endp, 16) :
						(uint32_t) strtoul(name + 1, &endp, 10);
					done = endp == semi;
				}
				else
					for (int e = 0; ents[e].name; e++)
						if (strlen(ents[e].name) == len && strncmp(name, ents[e].name, len) == 0)
						{
							cp = ents[e].cp;
							done = true;
							break;
						}
				if (done)
				{
					char		tmp[4];
					size_t		k = put_utf8(tmp, cp);

					/* an entity is never shorter than its encoding */
					memcpy(s + o, tmp, k);
					o += k;
					i = (size_t) (semi - s) + 1;
				}
			}
			if (!done)
				s[o++] = s[i++];
		}
		else
			s[o++] = s[i++];
	}
	return o;
}

/* Write body as COPY text: valid UTF-8, escaped, white space collapsed. */
static size_t
put_body(FILE *out, const char *s, size_t n, size_t max_bytes, bool *truncated)
{
	size_t		i = 0,
				w = 0;
	bool		pending = false;	/* white space seen since the last output */

	*truncated = false;
	while (i < n)
	{
		unsigned char c = (unsigned char) s[i];
		int			k;
		size_t		need;

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' ||
			(c < 0x20 && c != 0) || c == 0x7F)
		{
			pending = w > 0;	/* no leading white space */
			i++;
			continue;
		}
		k = utf8_len((const unsigned char *) s + i, n - i);
		need = (k ? (size_t) k : 1) + (pending ? 1 : 0);
		if (w + need > max_bytes)
		{
			*truncated = true;
			break;
		}
		if (pending)
		{
			fputc(' ', out);
			w++;
			pending = false;
		}
		if (k == 0)
		{
			fputc('?', out);	/* not UTF-8 */
			w++;
			i++;
		}
		else
		{
			if (c == '\\')
				fputc('\\', out);	/* COPY escape; counts as one byte of text */
			fwrite(s + i, 1, (size_t) k, out);
			w += (size_t) k;
			i += (size_t) k;
		}
	}
	return w;
}

/* Write a path as a COPY text field (escaping what COPY needs). */
static void
put_field(FILE *out, const char *s)
{
	for (; *s; s++)
	{
		if (*s == '\\')
			fputs("\\\\", out);
		else if (*s == '\t')
			fputs("\\t", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else if (*s == '\r')
			fputs("\\r", out);
		else
			fputc(*s, out);
	}
}

/* Entry point: paths on stdin, rows on stdout, summary on stderr. */
int
main(int argc, char **argv)
{
	bool		html = false;
	size_t		max_bytes = 262144,
				cap = 0,
				total = 0;
	const char *prefix = "";
	char	   *line = NULL;
	long		id = 0,
				skipped = 0,
				truncated = 0;
	ssize_t		len;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--html") == 0)
			html = true;
		else if (strcmp(argv[i], "--max-bytes") == 0 && i + 1 < argc)
			max_bytes = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--strip-prefix") == 0 && i + 1 < argc)
			prefix = argv[++i];
		else
		{
			fprintf(stderr, "usage: gpx_corpus [--html] [--max-bytes N] [--strip-prefix P] < paths\n");
			return 2;
		}
	}
	while ((len = getline(&line, &cap, stdin)) > 0)
	{
		size_t		n;
		char	   *body;
		bool		cut;
		const char *shown = line;

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (len == 0)
			continue;
		body = slurp(line, &n);
		if (body == NULL || memchr(body, '\0', n) != NULL)
		{
			skipped++;
			free(body);
			continue;
		}
		if (html)
			n = strip_html(body, n);
		if (strncmp(line, prefix, strlen(prefix)) == 0)
			shown = line + strlen(prefix);
		printf("%ld\t", ++id);
		put_field(stdout, shown);
		putchar('\t');
		total += put_body(stdout, body, n, max_bytes, &cut);
		putchar('\n');
		truncated += cut;
		free(body);
	}
	free(line);
	if (fflush(stdout) != 0)
		return 1;
	fprintf(stderr, "gpx_corpus: %ld documents, %ld skipped (binary/unreadable), %ld truncated, %zu bytes\n",
			id, skipped, truncated, total);
	return 0;
}
