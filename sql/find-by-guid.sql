-- purpose: read the ledger row of a GUID that already had one, and whether this request is byte for byte the stored one.
SELECT state, rsp_code, response, attempts,
       CASE WHEN request = :#request THEN 1 ELSE 0 END AS same_request
FROM tx
WHERE guid = :#guid
