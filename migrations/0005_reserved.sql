-- Number 0005 is taken by a schema change made elsewhere; this file holds its place so that
-- the numbers stay contiguous. It changes nothing.
SELECT 1;
