-- CDN (lib/cdn). Signing keys of signed CDN URLs: the first key is made on first use; a key id in
-- every signature lets a new key sign while older ones still verify (rotation).
CREATE TABLE "cdn_signing_keys" (
    "id" TEXT NOT NULL,
    "secret" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retired_at" TIMESTAMPTZ(3),

    CONSTRAINT "cdn_signing_keys_pkey" PRIMARY KEY ("id")
);

-- Server processes cache what the CDN checks on every request (an asset's status, hold, content,
-- visibility; lens definitions). Every change that can alter a CDN answer NOTIFYs them, so a
-- rejection, hold or removal takes effect at once; the payload names what to forget.
CREATE OR REPLACE FUNCTION sieve_notify_cdn_asset_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  row_old assets%ROWTYPE;
  row_new assets%ROWTYPE;
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF NEW.status IS NOT DISTINCT FROM OLD.status
       AND NEW.safety_hold IS NOT DISTINCT FROM OLD.safety_hold
       AND NEW.storage_id IS NOT DISTINCT FROM OLD.storage_id
       AND NEW.storage_deleted_at IS NOT DISTINCT FROM OLD.storage_deleted_at
       AND NEW.visibility IS NOT DISTINCT FROM OLD.visibility
       AND NEW.external_id IS NOT DISTINCT FROM OLD.external_id
       AND NEW.preview_image IS NOT DISTINCT FROM OLD.preview_image
       AND NEW.processing_options IS NOT DISTINCT FROM OLD.processing_options
       AND NEW.file_format IS NOT DISTINCT FROM OLD.file_format
       AND NEW.name IS NOT DISTINCT FROM OLD.name
       AND NEW.checksums IS NOT DISTINCT FROM OLD.checksums THEN
      RETURN NULL;
    END IF;
  END IF;
  IF TG_OP = 'INSERT' THEN row_old := NEW; ELSE row_old := OLD; END IF;
  IF TG_OP = 'DELETE' THEN row_new := OLD; ELSE row_new := NEW; END IF;
  PERFORM pg_notify('sieve_cdn_assets', json_build_object(
    'id', row_new.id, 'projectId', row_new.project_id,
    'externalIds', json_build_array(left(row_old.external_id, 3000), left(row_new.external_id, 3000)))::text);
  RETURN NULL;
END
$$;

CREATE TRIGGER assets_notify_cdn_change
  AFTER INSERT OR UPDATE OR DELETE ON "assets"
  FOR EACH ROW EXECUTE FUNCTION sieve_notify_cdn_asset_change();

CREATE OR REPLACE FUNCTION sieve_notify_cdn_lens_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('sieve_cdn_lenses', coalesce(OLD.project_id::text, '') || '/' || OLD.identifier);
  ELSE
    PERFORM pg_notify('sieve_cdn_lenses', coalesce(NEW.project_id::text, '') || '/' || NEW.identifier);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER lenses_notify_cdn_change
  AFTER INSERT OR UPDATE OR DELETE ON "lenses"
  FOR EACH ROW EXECUTE FUNCTION sieve_notify_cdn_lens_change();
