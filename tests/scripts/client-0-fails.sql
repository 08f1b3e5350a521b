-- Client 0 fails every transaction (and so gives up after 100 in a row); the others
-- succeed: the run must still end on time, its measured phase stopped without client 0.
\if :client_id = 0
SELECT 1 / 0;
\else
SELECT 1;
\endif
