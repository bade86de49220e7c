--
-- PostgreSQL database dump
--

\restrict NigzIdjXvknshw1j30rnJTMHf9bb0vpBUGJ59pXoCOPrKJALgofe4HOkZX12jaI

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: tx_history_key_of_older_row(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.tx_history_key_of_older_row() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    NEW.history_key := nextval('tx_history_key_seq');
    RETURN NEW;
END
$$;


--
-- Name: tx_history_of_deletes(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.tx_history_of_deletes() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE
    now_utc TEXT := to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS');
    purged_by TEXT := NULLIF(current_setting('idempotent_relay.purged_by', true), '');
BEGIN
    INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause, history_key)
    SELECT guid, now_utc, state, 'purged', rsp_code, attempts,
           COALESCE(purged_by, CASE WHEN cause = 'purge' THEN relay END),
           CASE WHEN purged_by IS NOT NULL OR cause = 'purge' THEN 'purge' ELSE 'manual' END,
           COALESCE(history_key, nextval('tx_history_key_seq'))
    FROM gone;
    RETURN NULL;
END
$$;


--
-- Name: tx_history_write(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.tx_history_write() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE
    now_utc TEXT := to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS');
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause, history_key)
        VALUES (NEW.guid, now_utc, NULL, NEW.state, NEW.rsp_code, NEW.attempts, NEW.relay, NEW.cause, NEW.history_key);
    ELSIF NEW.cause = 'purge' AND NEW.state = 'DONE' THEN
        DELETE FROM tx WHERE guid = NEW.guid;
    ELSIF OLD.state IS DISTINCT FROM NEW.state THEN
        INSERT INTO tx_history (guid, at, from_state, to_state, rsp_code, attempts, relay, cause, history_key)
        VALUES (NEW.guid, now_utc, OLD.state, NEW.state, NEW.rsp_code, NEW.attempts, NEW.relay, NEW.cause, NEW.history_key);
    END IF;
    RETURN NULL;
END
$$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: ledger_probe; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.ledger_probe (
    relay character varying(255) NOT NULL,
    probed_at text NOT NULL,
    probes bigint DEFAULT 1 NOT NULL
);


--
-- Name: tx_history_key_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.tx_history_key_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: tx; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.tx (
    guid character varying(32) NOT NULL,
    tx_code character varying(4) NOT NULL,
    state character varying(8) NOT NULL,
    rsp_code character varying(4),
    request bytea NOT NULL,
    response bytea,
    attempts integer DEFAULT 0 NOT NULL,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    relay text,
    cause text,
    history_key bigint DEFAULT nextval('public.tx_history_key_seq'::regclass),
    CONSTRAINT tx_state_check CHECK (((state)::text = ANY ((ARRAY['RECEIVED'::character varying, 'SENT'::character varying, 'DONE'::character varying, 'UNKNOWN'::character varying, 'FAILED'::character varying])::text[])))
);


--
-- Name: tx_history; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.tx_history (
    id bigint NOT NULL,
    guid character varying(32) NOT NULL,
    at text NOT NULL,
    from_state character varying(8),
    to_state character varying(8) NOT NULL,
    rsp_code character varying(4),
    attempts integer,
    relay text,
    cause text,
    history_key bigint
);


--
-- Name: tx_history_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.tx_history ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.tx_history_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Data for Name: ledger_probe; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.ledger_probe (relay, probed_at, probes) FROM stdin;
fixture-relay	2026-12-05 09:08:54	2
\.


--
-- Data for Name: tx; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.tx (guid, tx_code, state, rsp_code, request, response, attempts, created_at, updated_at, relay, cause, history_key) FROM stdin;
A352F100000000000000000000000001	TR01	DONE	0000	\\x545230315141333532463130303030303030303030303030303030303030303030303030314d4f42312020202031303032303033303034303035303036323030333030343030353030363030373030303030303030303031303030306c756e6368206d6f6e6579202020202020202020	\\x545230315241333532463130303030303030303030303030303030303030303030303030314d4f423130303030435230303030303030303030303030313030303030303939393939303030303230323631323035303930383430	1	2026-12-05 09:08:40	2026-12-05 09:08:41	fixture-relay	channel	1
A352F100000000000000000000000002	TR01	DONE	0000	\\x5452303151413335324631303030303030303030303030303030303030303030303030303242524e3120202020333030343030353030363030373030383430303530303630303730303830303930303030303030303032353030303072656e7420646563656d62657220202020202020	\\x5452303152413335324631303030303030303030303030303030303030303030303030303242524e3130303030435230303030303030303030303030323030303030303939393735303030303230323631323035303930383432	1	2026-12-05 09:08:42	2026-12-05 09:08:42	fixture-relay	channel	2
A352F100000000000000000000000003	TR01	DONE	0000	\\x5452303151413335324631303030303030303030303030303030303030303030303030303341544d312020202035303036303037303038303039303030363030373030383030393030303030313030303030303030303030303030312020202020202020202020202020202020202020	\\x5452303152413335324631303030303030303030303030303030303030303030303030303341544d3130303030435230303030303030303030303030333030303030303939393939393939393230323631323035303930383432	1	2026-12-05 09:08:42	2026-12-05 09:08:42	fixture-relay	channel	3
A352F100000000000000000000000004	TR01	DONE	B201	\\x545230315141333532463130303030303030303030303030303030303030303030303030344d4f4231202020203130303230303330303430303530303632303033303034303035303036303037393939393939393939393939393939746f6f206d756368202020202020202020202020	\\x545230315241333532463130303030303030303030303030303030303030303030303030344d4f423142323031	1	2026-12-05 09:08:43	2026-12-05 09:08:43	fixture-relay	channel	4
A352F100000000000000000000000005	TR01	DONE	B202	\\x545230315141333532463130303030303030303030303030303030303030303030303030354d4f4231202020203130303230303330303430303530303630303030393939393838383837373737303030303030303030303035303030746f206e6f776865726520202020202020202020	\\x545230315241333532463130303030303030303030303030303030303030303030303030354d4f423142323032	1	2026-12-05 09:08:44	2026-12-05 09:08:44	fixture-relay	channel	5
A352F100000000000000000000000006	TR01	DONE	E500	\\x5452303151413335324631303030303030303030303030303030303030303030303030303642524e312020202037303038303039303030303031303032383030393030303030313030323030333030303030303030303030373730304641494c20636f7265206572726f722020202020	\\x5452303152413335324631303030303030303030303030303030303030303030303030303642524e3145353030	1	2026-12-05 09:08:45	2026-12-05 09:08:45	fixture-relay	channel	6
A352F100000000000000000000000007	TR01	UNKNOWN	E901	\\x545230315141333532463130303030303030303030303030303030303030303030303030374d4f4231202020203930303030303130303230303330303431303032303033303034303035303036303030303030303030303038383030534c4f5720636f72652020202020202020202020	\N	1	2026-12-05 09:08:47	2026-12-05 09:08:48	fixture-relay	channel	7
A352F100000000000000000000000008	TR01	FAILED	E902	\\x5452303151413335324631303030303030303030303030303030303030303030303030303841544d31202020203230303330303430303530303630303733303034303035303036303037303038303030303030303030303034323030636f726520646f776e2020202020202020202020	\N	1	2026-12-05 09:08:55	2026-12-05 09:08:55	fixture-relay	channel	8
A352F100000000000000000000000009	TR01	FAILED	E902	\\x5452303151413335324631303030303030303030303030303030303030303030303030303942524e31202020203430303530303630303730303830303935303036303037303038303039303030303030303030303030303034333030636f726520646f776e2074776963652020202020	\N	2	2026-12-05 09:08:55	2026-12-05 09:08:56	fixture-relay	channel	9
\.


--
-- Data for Name: tx_history; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.tx_history (id, guid, at, from_state, to_state, rsp_code, attempts, relay, cause, history_key) FROM stdin;
1	A352F100000000000000000000000001	2026-12-05 09:08:40	\N	SENT	\N	1	fixture-relay	channel	1
2	A352F100000000000000000000000001	2026-12-05 09:08:41	SENT	DONE	0000	1	fixture-relay	channel	1
3	A352F100000000000000000000000002	2026-12-05 09:08:42	\N	SENT	\N	1	fixture-relay	channel	2
4	A352F100000000000000000000000002	2026-12-05 09:08:42	SENT	DONE	0000	1	fixture-relay	channel	2
5	A352F100000000000000000000000003	2026-12-05 09:08:42	\N	SENT	\N	1	fixture-relay	channel	3
6	A352F100000000000000000000000003	2026-12-05 09:08:42	SENT	DONE	0000	1	fixture-relay	channel	3
7	A352F100000000000000000000000004	2026-12-05 09:08:43	\N	SENT	\N	1	fixture-relay	channel	4
8	A352F100000000000000000000000004	2026-12-05 09:08:43	SENT	DONE	B201	1	fixture-relay	channel	4
9	A352F100000000000000000000000005	2026-12-05 09:08:44	\N	SENT	\N	1	fixture-relay	channel	5
10	A352F100000000000000000000000005	2026-12-05 09:08:44	SENT	DONE	B202	1	fixture-relay	channel	5
11	A352F100000000000000000000000006	2026-12-05 09:08:45	\N	SENT	\N	1	fixture-relay	channel	6
12	A352F100000000000000000000000006	2026-12-05 09:08:45	SENT	DONE	E500	1	fixture-relay	channel	6
13	A352F100000000000000000000000007	2026-12-05 09:08:47	\N	SENT	\N	1	fixture-relay	channel	7
14	A352F100000000000000000000000007	2026-12-05 09:08:48	SENT	UNKNOWN	E901	1	fixture-relay	channel	7
15	A352F100000000000000000000000008	2026-12-05 09:08:55	\N	SENT	\N	1	fixture-relay	channel	8
16	A352F100000000000000000000000008	2026-12-05 09:08:55	SENT	FAILED	E902	1	fixture-relay	channel	8
17	A352F100000000000000000000000009	2026-12-05 09:08:55	\N	SENT	\N	1	fixture-relay	channel	9
18	A352F100000000000000000000000009	2026-12-05 09:08:55	SENT	FAILED	E902	1	fixture-relay	channel	9
19	A352F100000000000000000000000009	2026-12-05 09:08:56	FAILED	SENT	E902	2	fixture-relay	channel	9
20	A352F100000000000000000000000009	2026-12-05 09:08:56	SENT	FAILED	E902	2	fixture-relay	channel	9
\.


--
-- Name: tx_history_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.tx_history_id_seq', 20, true);


--
-- Name: tx_history_key_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.tx_history_key_seq', 9, true);


--
-- Name: ledger_probe ledger_probe_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ledger_probe
    ADD CONSTRAINT ledger_probe_pkey PRIMARY KEY (relay);


--
-- Name: tx_history tx_history_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tx_history
    ADD CONSTRAINT tx_history_pkey PRIMARY KEY (id);


--
-- Name: tx tx_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tx
    ADD CONSTRAINT tx_pkey PRIMARY KEY (guid);


--
-- Name: tx_history_first_version; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tx_history_first_version ON public.tx_history USING btree (guid) WHERE (history_key IS NULL);


--
-- Name: tx_history_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tx_history_key ON public.tx_history USING btree (history_key);


--
-- Name: tx_history_purged_by_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tx_history_purged_by_key ON public.tx_history USING btree (((history_key / 4096)), guid) WHERE ((to_state)::text = 'purged'::text);


--
-- Name: tx_state_updated_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tx_state_updated_at ON public.tx USING btree (state, updated_at);


--
-- Name: tx tx_history_key_of_older_row; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER tx_history_key_of_older_row BEFORE UPDATE ON public.tx FOR EACH ROW WHEN ((new.history_key IS NULL)) EXECUTE FUNCTION public.tx_history_key_of_older_row();


--
-- Name: tx tx_history_of_deletes; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER tx_history_of_deletes AFTER DELETE ON public.tx REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION public.tx_history_of_deletes();


--
-- Name: tx tx_history_write; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER tx_history_write AFTER INSERT OR UPDATE ON public.tx FOR EACH ROW EXECUTE FUNCTION public.tx_history_write();


--
-- PostgreSQL database dump complete
--

\unrestrict NigzIdjXvknshw1j30rnJTMHf9bb0vpBUGJ59pXoCOPrKJALgofe4HOkZX12jaI

