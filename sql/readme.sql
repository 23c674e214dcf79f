-- readme: the SQL examples of README.md, in order, from an empty database,
-- as a new user would paste them.  sql/readme_examples.awk takes them out
-- of README.md when the test runs, so that they cannot drift from the code:
-- an example that fails, or whose output changes, fails this test.  The
-- blocks the README marks "<!-- test: executor -->" run with their output
-- discarded, since it depends on whether the library is preloaded (the
-- regression suite runs with and without); test/t/013_group_batch.pl runs
-- them with the executor and checks what they print.
\set ECHO none
SET client_min_messages = warning;
SELECT current_database() AS regress_db \gset
DROP DATABASE IF EXISTS gpuidx_readme;
CREATE DATABASE gpuidx_readme;
\! awk -f sql/readme_examples.awk README.md > results/readme_examples.sql
\c gpuidx_readme
\set ECHO all
\i results/readme_examples.sql
\set ECHO none
\c :regress_db
SET client_min_messages = warning;
DROP DATABASE gpuidx_readme;
