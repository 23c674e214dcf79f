# sql/gpuidx_gen.awk - expand the template sql/gpuidx.sql.in into one of
# the extension's scripts (POSIX awk; make runs it, see the Makefile):
#
#   awk -v to=V -f sql/gpuidx_gen.awk sql/gpuidx.sql.in
#       the install script of version V (sql/gpuidx--V.sql)
#   awk -v from=P -v to=V -f sql/gpuidx_gen.awk sql/gpuidx.sql.in
#       the update script from version P to V (sql/gpuidx--P--V.sql)
#
# The template's directives and what each script receives are described at
# the head of the template.  Any mistake in the template (an unknown
# directive or placeholder, a nested or unclosed block, a version after V,
# a COMMENT ON over several lines) stops with "file:line: message" on
# stderr and exit status 1, so make fails instead of installing a bad
# script.

# Report a template error and stop.
function fail(msg) {
	printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
	failed = 1
	exit 1
}

# Whether v is a version number such as 0.2 or 1.10.
function is_version(v) {
	return v ~ /^[0-9]+(\.[0-9]+)*$/
}

# Compare two version numbers component by component: -1, 0 or 1.
function vcmp(a, b,    x, y, nx, ny, i, m) {
	nx = split(a, x, ".")
	ny = split(b, y, ".")
	m = nx > ny ? nx : ny
	for (i = 1; i <= m; i++) {
		if (x[i] + 0 < y[i] + 0) return -1
		if (x[i] + 0 > y[i] + 0) return 1
	}
	return 0
}

# s with every occurrence of key replaced by val (literal, no regex).
function subst(s, key, val,    out, i) {
	out = ""
	while ((i = index(s, key)) > 0) {
		out = out substr(s, 1, i - 1) val
		s = substr(s, i + length(key))
	}
	return out s
}

# Print one expanded line if the script being made wants it: a line of
# version `since` (0 outside since-blocks), of an update block if upd.
function emit(line, since, upd) {
	if (line ~ /@[A-Z][A-Z_]*@/)
		fail("placeholder outside its block or unknown: " line)
	if (line ~ /^COMMENT ON / && line !~ /;[ \t]*$/)
		fail("a COMMENT ON statement must fit on one line")
	if (mode == "install") {
		if (!upd)
			print line
	} else if (upd || vcmp(since, from) > 0 || line ~ /^COMMENT ON /)
		print line
}

# Expand the block held in buf[1..nbuf] for its iteration and emit it.
function flush_block(    i, j, k, line) {
	if (ntypes == 0 && kind != "once")
		fail("a repeated block before the --@ type lines")
	if (kind == "once") {
		for (k = 1; k <= nbuf; k++)
			emit(buf[k], bsince, bupd)
		return
	}
	if (kind == "T") {
		for (i = 1; i <= ntypes; i++)
			for (k = 1; k <= nbuf; k++) {
				line = subst(buf[k], "@T@", tname[i])
				line = subst(line, "@CODEC@", tcodec[i])
				emit(subst(line, "@DESC@", tdesc[i]), bsince, bupd)
			}
		return
	}
	for (i = 1; i <= ntypes; i++)
		for (j = 1; j <= ntypes; j++) {
			if (kind == "distinct" && i == j) continue
			if (kind == "unordered" && i > j) continue
			for (k = 1; k <= nbuf; k++) {
				line = subst(buf[k], "@A@", tname[i])
				emit(subst(line, "@B@", tname[j]), bsince, bupd)
			}
		}
}

# Parse "--@ [each T | each A B [distinct|unordered]] [since V | update V]".
function open_block(    w) {
	if (inblock)
		fail("blocks do not nest (no --@ end for the block above)")
	kind = "once"
	bsince = "0"
	bupd = 0
	w = 2
	if ($w == "each") {
		if ($(w + 1) == "T") {
			kind = "T"
			w += 2
		} else if ($(w + 1) == "A" && $(w + 2) == "B") {
			kind = "AB"
			w += 3
			if ($w == "distinct" || $w == "unordered") {
				kind = $w
				w++
			}
		} else
			fail("each takes T, or A B")
	}
	if ($w == "since" || $w == "update") {
		if (!is_version($(w + 1)) || NF != w + 1)
			fail($w " takes one version number and ends the line")
		if (vcmp($(w + 1), to) > 0)
			fail("version " $(w + 1) " is after the version made, " to)
		if ($w == "since")
			bsince = $(w + 1)
		else {
			if (vcmp($(w + 1), to) != 0)
				fail("update block of " $(w + 1) ", but this makes " to ": delete it (that update script is frozen)")
			bupd = 1
		}
	} else if (NF >= w || kind == "once")
		fail("unknown directive: " $0)
	inblock = 1
	nbuf = 0
}

BEGIN {
	if (!is_version(to))
		fail("usage: awk -v to=VERSION [-v from=VERSION] -f gpuidx_gen.awk TEMPLATE")
	mode = "install"
	if (from != "") {
		if (!is_version(from) || vcmp(from, to) >= 0)
			fail("from must be a version before to")
		mode = "update"
	}
	if (mode == "install") {
		print "-- gpuidx--" to ".sql: made by sql/gpuidx_gen.awk from sql/gpuidx.sql.in; edit that, not this."
		print ""
		print "-- complain if script is sourced in psql, rather than via CREATE EXTENSION"
		print "\\echo Use \"CREATE EXTENSION gpuidx\" to load this file. \\quit"
	} else {
		print "-- gpuidx--" from "--" to ".sql: made by sql/gpuidx_gen.awk from sql/gpuidx.sql.in; edit that, not this."
		print "-- Turns an installation of version " from " into exactly a fresh one of " to "."
		print ""
		print "-- complain if script is sourced in psql, rather than via ALTER EXTENSION"
		print "\\echo Use \"ALTER EXTENSION gpuidx UPDATE TO '" to "'\" to load this file. \\quit"
	}
}

/^--#/ { next }

/^--@ +type / {
	if (inblock)
		fail("--@ type inside a block")
	if (NF < 5)
		fail("--@ type NAME CODEC DESCRIPTION")
	ntypes++
	tname[ntypes] = $3
	tcodec[ntypes] = $4
	line = $0
	sub(/^--@ +type +[^ ]+ +[^ ]+ +/, "", line)
	tdesc[ntypes] = line
	next
}

/^--@ +end *$/ {
	if (!inblock)
		fail("--@ end without a block")
	flush_block()
	inblock = 0
	next
}

/^--@/ { open_block(); next }

{
	if (inblock)
		buf[++nbuf] = $0
	else
		emit($0, "0", 0)
}

END {
	if (failed)
		exit 1
	if (inblock)
		fail("the template ends inside a block")
}
