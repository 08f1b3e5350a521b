\set r random(1, 10)
\if :r > 5
  SELECT 'high' AS band \gset
\elif :r = 5 or :r is null
  \sleep 1 ms
\else
  \set r -:r + abs(-3) * pi() / 2.5e0
\endif
/* a comment ; with a semicolon */ SELECT $$ dollar ; quoted $$, 'it''s', E'\\n', "Id" FROM t WHERE x = :r;
\set h hash_fnv1a(:r, 5432) % 10 + least(1, 2, 3) - greatest(4.5, :r)
\set z random_zipfian(1, 100, 1.07) + random_exponential(1, 10, 2.0) + random_gaussian(1, 10, 2.5)
\set p permute(:r, 100, 7) << 2 | ~ 1 # 3 & 7 >> 1
\sleep :r us
