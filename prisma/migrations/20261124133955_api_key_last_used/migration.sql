-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "last_used_at" TIMESTAMPTZ(3);

-- Recording last use must not make servers forget the key they just cached: the change
-- notification (20261121170500_api_key_change_notifications) now fires only when something other
-- than last_used_at changes; deletions still always notify.
DROP TRIGGER api_keys_notify_change ON "api_keys";

CREATE TRIGGER api_keys_notify_update
  AFTER UPDATE ON "api_keys"
  FOR EACH ROW
  WHEN ((to_jsonb(OLD) - 'last_used_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at'))
  EXECUTE FUNCTION sieve_notify_api_key_change();

CREATE TRIGGER api_keys_notify_delete
  AFTER DELETE ON "api_keys"
  FOR EACH ROW EXECUTE FUNCTION sieve_notify_api_key_change();
