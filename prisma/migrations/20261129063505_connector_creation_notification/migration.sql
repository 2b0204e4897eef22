-- A connector's creation is announced on `sieve_connectors` too: the dispatcher skips passes while
-- no connector is enabled and nothing was announced since (lib/connectors/dispatch.ts), so without
-- this a first connector's events waited for the next poll. The function names the new row on
-- INSERT (OLD is null there) and the old one on UPDATE and DELETE.
CREATE OR REPLACE FUNCTION sieve_notify_connector_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('sieve_connectors', (CASE WHEN TG_OP = 'INSERT' THEN NEW.id ELSE OLD.id END)::text);
  RETURN NULL;
END
$$;

CREATE TRIGGER connectors_notify_insert
  AFTER INSERT ON "connectors"
  FOR EACH ROW EXECUTE FUNCTION sieve_notify_connector_change();
