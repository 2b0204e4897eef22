-- The CDN's change notification says whether the asset can no longer be served (rejected, failed,
-- held, content removed), so every server drops its stored derived copies without asking the
-- database again for each change.
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
    'externalIds', json_build_array(left(row_old.external_id, 3000), left(row_new.external_id, 3000)),
    'blocked', TG_OP <> 'DELETE' AND (row_new.status IN ('rejected', 'error') OR row_new.safety_hold IS NOT NULL
                                      OR row_new.storage_deleted_at IS NOT NULL))::text);
  RETURN NULL;
END
$$;
