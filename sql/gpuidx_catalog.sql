--
-- gpuidx_catalog: the extension's objects as the catalog holds them.
-- 1. Every object of the extension carries a one-line COMMENT.
-- 2. The oldest shipped version (0.1) brought up to date with ALTER
--    EXTENSION UPDATE is exactly a fresh CREATE EXTENSION: the same
--    objects with the same definitions, properties, privileges and
--    comments (compared in a database of their own).
--
\i sql/regress_setup.psql

-- the extension's members: class and OID of each
CREATE TEMP VIEW members AS
SELECT d.classid, d.objid
FROM pg_depend d JOIN pg_extension e ON d.refobjid = e.oid
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND e.extname = 'gpuidx';

-- objects without a comment, or with one of several lines (none expected)
SELECT pg_describe_object(m.classid, m.objid, 0) AS object,
       coalesce(c.description, '(no comment)') AS comment
FROM members m
LEFT JOIN pg_description c ON c.classoid = m.classid AND c.objoid = m.objid
                          AND c.objsubid = 0
WHERE c.description IS NULL OR c.description ~ '\n' OR c.description = ''
ORDER BY 1;

-- ---------------------------------------------------------------------------
-- 0.1 + ALTER EXTENSION UPDATE = a fresh install
-- ---------------------------------------------------------------------------
SELECT current_database() AS regress_db \gset
CREATE DATABASE gpuidx_catalog_check;
\c gpuidx_catalog_check
CREATE SCHEMA catcmp;

-- One row per member of the extension, and one for the extension itself:
-- its kind, its identity and everything the catalog says of it, with OIDs
-- replaced by names (no OID survives a reinstall).  detail is NULL for a
-- class of object that this function does not describe yet.
CREATE FUNCTION catcmp.describe(OUT kind text, OUT object text, OUT detail text)
RETURNS SETOF record LANGUAGE sql STABLE AS $$
WITH ext AS (
    SELECT * FROM pg_extension WHERE extname = 'gpuidx'
), m AS (
    SELECT d.classid, d.objid, (pg_identify_object(d.classid, d.objid, 0)).*
    FROM pg_depend d, ext
    WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid
      AND d.deptype = 'e'
)
SELECT m.type, m.identity,
       CASE m.classid
       WHEN 'pg_proc'::regclass THEN (
           SELECT ROW(p.prokind, pg_get_function_arguments(p.oid),
                      pg_get_function_result(p.oid), l.lanname, p.prosrc,
                      p.probin, p.provolatile, p.proparallel, p.proisstrict,
                      p.proretset, p.prosecdef, p.proleakproof, p.procost,
                      p.prorows, p.prosupport::regprocedure, p.proconfig,
                      p.provariadic::regtype, p.proacl)::text
                  || coalesce(' aggregate ' || (
                      SELECT ROW(a.aggkind, a.aggnumdirectargs,
                                 a.aggtransfn::regprocedure,
                                 a.aggfinalfn::regprocedure,
                                 a.aggcombinefn::regprocedure,
                                 a.aggserialfn::regprocedure,
                                 a.aggdeserialfn::regprocedure,
                                 a.aggmtransfn::regprocedure,
                                 a.aggminvtransfn::regprocedure,
                                 a.aggmfinalfn::regprocedure, a.aggfinalextra,
                                 a.aggmfinalextra, a.aggfinalmodify,
                                 a.aggmfinalmodify, a.aggsortop::regoperator,
                                 a.aggtranstype::regtype, a.aggtransspace,
                                 a.aggmtranstype::regtype, a.aggmtransspace,
                                 a.agginitval, a.aggminitval)::text
                      FROM pg_aggregate a WHERE a.aggfnoid = p.oid), '')
           FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
           WHERE p.oid = m.objid)
       WHEN 'pg_type'::regclass THEN (
           SELECT ROW(t.typtype, t.typlen, t.typbyval, t.typcategory,
                      t.typispreferred, t.typisdefined, t.typdelim,
                      t.typrelid::regclass, t.typsubscript::regprocedure,
                      t.typelem::regtype, t.typinput::regprocedure,
                      t.typoutput::regprocedure, t.typreceive::regprocedure,
                      t.typsend::regprocedure, t.typmodin::regprocedure,
                      t.typmodout::regprocedure, t.typanalyze::regprocedure,
                      t.typalign, t.typstorage, t.typnotnull,
                      t.typbasetype::regtype, t.typtypmod, t.typndims,
                      t.typcollation, t.typdefault, t.typacl)::text
                  || ' array ' || coalesce((
                      SELECT ROW(a.typname, a.typlen, a.typcategory,
                                 a.typelem::regtype,
                                 a.typsubscript::regprocedure, a.typalign,
                                 a.typstorage, a.typacl)::text
                      FROM pg_type a WHERE a.oid = t.typarray), 'none')
           FROM pg_type t WHERE t.oid = m.objid)
       WHEN 'pg_operator'::regclass THEN (
           SELECT ROW(o.oprkind, o.oprcanmerge, o.oprcanhash,
                      o.oprresult::regtype, o.oprcom::regoperator,
                      o.oprnegate::regoperator, o.oprcode::regprocedure,
                      o.oprrest::regprocedure, o.oprjoin::regprocedure)::text
           FROM pg_operator o WHERE o.oid = m.objid)
       WHEN 'pg_cast'::regclass THEN (
           SELECT ROW(c.castfunc::regprocedure, c.castcontext,
                      c.castmethod)::text
           FROM pg_cast c WHERE c.oid = m.objid)
       WHEN 'pg_class'::regclass THEN (
           SELECT ROW(c.relkind, c.relpersistence, c.reloptions, c.relacl,
                      pg_get_viewdef(c.oid))::text
                  || ' columns ' || (
                      SELECT string_agg(format('%s %s %s', a.attname,
                                               format_type(a.atttypid, a.atttypmod),
                                               coalesce(d.description, '')),
                                        ', ' ORDER BY a.attnum)
                      FROM pg_attribute a
                      LEFT JOIN pg_description d
                        ON d.classoid = 'pg_class'::regclass
                       AND d.objoid = c.oid AND d.objsubid = a.attnum
                      WHERE a.attrelid = c.oid AND a.attnum > 0
                        AND NOT a.attisdropped)
           FROM pg_class c WHERE c.oid = m.objid)
       WHEN 'pg_opclass'::regclass THEN (
           SELECT ROW(c.opcintype::regtype, c.opcdefault,
                      c.opckeytype::regtype,
                      pg_describe_object('pg_opfamily'::regclass,
                                         c.opcfamily, 0))::text
           FROM pg_opclass c WHERE c.oid = m.objid)
       WHEN 'pg_opfamily'::regclass THEN (
           SELECT coalesce(string_agg(x, '; ' ORDER BY x), '')
           FROM (SELECT format('op %s %s %s %s %s', o.amopstrategy,
                               o.amopopr::regoperator, o.amoppurpose,
                               o.amopmethod, o.amopsortfamily) AS x
                 FROM pg_amop o WHERE o.amopfamily = m.objid
                 UNION ALL
                 SELECT format('proc %s %s %s %s', p.amprocnum,
                               p.amproclefttype::regtype,
                               p.amprocrighttype::regtype,
                               p.amproc::regprocedure)
                 FROM pg_amproc p WHERE p.amprocfamily = m.objid) s)
       END
       || ' comment ' || coalesce((
           SELECT d.description FROM pg_description d
           WHERE d.classoid = m.classid AND d.objoid = m.objid
             AND d.objsubid = 0), '(none)')
       || ' initprivs ' || coalesce((
           SELECT ROW(i.privtype, i.initprivs)::text FROM pg_init_privs i
           WHERE i.classoid = m.classid AND i.objoid = m.objid
             AND i.objsubid = 0), '(none)')
FROM m
UNION ALL
SELECT 'extension', e.extname,
       ROW(e.extversion, e.extrelocatable, e.extnamespace::regnamespace,
           e.extconfig::regclass[], e.extcondition)::text
FROM ext e
$$;

CREATE EXTENSION gpuidx;
CREATE TABLE catcmp.fresh AS SELECT * FROM catcmp.describe();
DROP EXTENSION gpuidx;
CREATE EXTENSION gpuidx VERSION '0.1';
ALTER EXTENSION gpuidx UPDATE;
CREATE TABLE catcmp.updated AS SELECT * FROM catcmp.describe();

-- the update reached the default version
SELECT extversion = (SELECT default_version FROM pg_available_extensions
                     WHERE name = 'gpuidx') AS at_default_version
FROM pg_extension WHERE extname = 'gpuidx';
-- the kinds of object compared, each described in full (a kind this test
-- does not know yet counts its objects in not_described)
SELECT kind, count(*) FILTER (WHERE detail IS NULL) AS not_described
FROM catcmp.fresh GROUP BY kind ORDER BY kind;
-- the differences (none expected)
(SELECT 'fresh install only' AS side, * FROM catcmp.fresh
 EXCEPT SELECT 'fresh install only', * FROM catcmp.updated)
UNION ALL
(SELECT 'updated from 0.1 only', * FROM catcmp.updated
 EXCEPT SELECT 'updated from 0.1 only', * FROM catcmp.fresh)
ORDER BY kind, object, side;

\c :regress_db
DROP DATABASE gpuidx_catalog_check;
