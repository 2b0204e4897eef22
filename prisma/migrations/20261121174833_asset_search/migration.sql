-- AlterTable
ALTER TABLE "assets" ADD COLUMN     "labels" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- Full-text search (hand-written below: Prisma cannot express generated tsvector columns; the
-- schema declares search_vector as Unsupported("tsvector") with this default expression).
--
-- Splits words joined by punctuation ("sunset-over-harbour.jpg", "IMG_2041.png"), which the
-- parser would otherwise keep as one host or file token.
CREATE FUNCTION "sieve_search_words"("value" TEXT) RETURNS TEXT
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN regexp_replace(coalesce("value", ''), '[[:punct:]]+', ' ', 'g');

-- The exact words of a short text (name, tags, labels): the text as the parser sees it ('simple'
-- keeps whole file names and codes), its punctuation-split words, and their English stems.
CREATE FUNCTION "sieve_search_short_text"("value" TEXT, "weight" "char") RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN setweight(
        to_tsvector('simple'::regconfig, coalesce("value", '')) ||
        to_tsvector('simple'::regconfig, sieve_search_words("value")) ||
        to_tsvector('english'::regconfig, sieve_search_words("value")),
        "weight");

-- The document of an asset, weighted: A name and tags, B description and labels, C metadata
-- values, D extracted text. Name, tags and labels are indexed as exact words and English stems
-- (sieve_search_short_text), the longer texts as English stems. Long texts are capped so that the
-- tsvector stays below PostgreSQL's 1 MB limit. A generated column needs an IMMUTABLE
-- expression: array_to_string is only STABLE in general, but immutable for text[]. SQL-standard
-- bodies are bound at creation, independent of search_path.
--
-- Changing these functions does not recompute stored vectors: a later change must replace them
-- and re-add the column (DROP COLUMN search_vector, ADD COLUMN ... GENERATED ...) and its index.
CREATE FUNCTION "sieve_asset_search_vector"(
    "name" TEXT, "description" TEXT, "tags" TEXT[], "labels" TEXT[], "metadata" JSONB, "extracted_text" TEXT
) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN
        sieve_search_short_text("name", 'A') ||
        sieve_search_short_text(array_to_string("tags", ' '), 'A') ||
        setweight(to_tsvector('english'::regconfig, coalesce("description", '')), 'B') ||
        sieve_search_short_text(array_to_string("labels", ' '), 'B') ||
        -- the values (not the ids) of the metadata items [{id, value}]
        setweight(to_tsvector('english'::regconfig,
            left(coalesce(jsonb_path_query_array("metadata", '$[*].value')::TEXT, ''), 100000)), 'C') ||
        setweight(to_tsvector('english'::regconfig, left(coalesce("extracted_text", ''), 200000)), 'D');

ALTER TABLE "assets" ADD COLUMN "search_vector" tsvector
    GENERATED ALWAYS AS (sieve_asset_search_vector("name", "description", "tags", "labels", "metadata", "extracted_text")) STORED;

CREATE INDEX "assets_search_vector_idx" ON "assets" USING GIN ("search_vector");
