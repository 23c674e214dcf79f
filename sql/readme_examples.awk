# sql/readme_examples.awk - the SQL examples of README.md (every ```sql
# block, in order) as one psql script, so that tests run exactly what the
# README shows.  A block on the line after "<!-- test: executor -->" prints
# what depends on the executor (the library preloaded or not, the machine);
# -v mode= picks what comes out:
#
#   regress   (default) every block; the executor blocks' output and
#             warnings discarded (\o /dev/null, client_min_messages =
#             error: without preloading, gpuidx.device = cpu warns that there
#             is no executor), so that they still must run without an error
#   all       every block as it is
#   executor  only the executor blocks
#
#   awk -f sql/readme_examples.awk README.md > readme.sql
BEGIN { if (mode == "") mode = "regress" }
/^```sql[ \t]*$/ && !inblock {
	inblock = 1
	exec = (prev ~ /^<!-- test: executor -->[ \t]*$/)
	show = (mode != "executor" || exec)
	if (show && mode == "regress" && exec) print "\\o /dev/null\nSET client_min_messages = error;"
	prev = $0
	next
}
/^```[ \t]*$/ && inblock {
	if (show && mode == "regress" && exec) print "RESET client_min_messages;\n\\o"
	inblock = 0
	prev = $0
	next
}
inblock && show { print }
{ prev = $0 }
