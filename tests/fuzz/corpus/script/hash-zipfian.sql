\set r random_zipfian(0, 100000000, 1.07)
\set k abs(hash(:r)) % 1000000
