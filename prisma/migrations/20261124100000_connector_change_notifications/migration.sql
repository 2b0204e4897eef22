-- First attempts use a delivery as the dispatcher read it only while its connector is unchanged
-- (lib/connectors/delivery/connector-changes.ts). Every change of what a delivery reads of a
-- connector (on/off, target, secrets, subscriptions, failure run; not the last-success stamp, which
-- successes refresh) and its deletion are announced on `sieve_connectors` with the connector's id.
CREATE OR REPLACE FUNCTION sieve_notify_connector_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('sieve_connectors', OLD.id::text);
  RETURN NULL;
END
$$;

CREATE TRIGGER connectors_notify_change
  AFTER UPDATE ON "connectors"
  FOR EACH ROW
  WHEN ((OLD.enabled, OLD.type, OLD.name, OLD.url, OLD.recipients, OLD.event_types, OLD.secret, OLD.previous_secret,
         OLD.previous_secret_expires_at, OLD.consecutive_failures, OLD.failing_since)
        IS DISTINCT FROM
        (NEW.enabled, NEW.type, NEW.name, NEW.url, NEW.recipients, NEW.event_types, NEW.secret, NEW.previous_secret,
         NEW.previous_secret_expires_at, NEW.consecutive_failures, NEW.failing_since))
  EXECUTE FUNCTION sieve_notify_connector_change();

CREATE TRIGGER connectors_notify_delete
  AFTER DELETE ON "connectors"
  FOR EACH ROW EXECUTE FUNCTION sieve_notify_connector_change();
