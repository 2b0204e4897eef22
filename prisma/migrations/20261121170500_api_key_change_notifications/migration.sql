-- Server processes cache authenticated API keys (lib/auth/key-cache.ts). Every change to a key
-- (revocation, expiry, permissions, deletion, also through a cascade) and every change of a
-- project's owner tells them, through LISTEN/NOTIFY, to forget what they cached.
CREATE OR REPLACE FUNCTION sieve_notify_api_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('sieve_api_keys', OLD.key_hash);
  RETURN NULL;
END
$$;

CREATE TRIGGER api_keys_notify_change
  AFTER UPDATE OR DELETE ON "api_keys"
  FOR EACH ROW EXECUTE FUNCTION sieve_notify_api_key_change();

CREATE OR REPLACE FUNCTION sieve_notify_project_owner_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.owner_user_id IS DISTINCT FROM OLD.owner_user_id THEN
    PERFORM pg_notify('sieve_api_keys', '*');
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER projects_notify_owner_change
  AFTER UPDATE ON "projects"
  FOR EACH ROW EXECUTE FUNCTION sieve_notify_project_owner_change();
