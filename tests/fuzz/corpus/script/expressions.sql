\set a 9223372036854775807
\set b -9223372036854775808 + 0
\set c CASE WHEN :a > :b THEN 1.5 WHEN :a IS NOT NULL THEN 2 ELSE NULL END
\set d int(sqrt(double(:a) * 2)) % 7
\set e exp(ln(2.0)) <> 2.0 AND NOT (true OR false)
\set f mod(17, 5) + pow(2, 10) + power(2.0, 0.5)
SELECT :a, :b, :c, :d, :e, :f;
