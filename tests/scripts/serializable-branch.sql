-- Every client updates the one branch row at SERIALIZABLE: concurrent updates of it fail
-- with serialization failures (40001), which --max-tries retries or counts as failed.
\set delta random(-5000, 5000)
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT bbalance FROM pgbench_branches WHERE bid = 1;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = 1;
END;
