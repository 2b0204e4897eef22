import { sqlPool } from "@/lib/db/client";
import { RELATION_WEIGHT, type Concept, type ParsedQuery } from "./query";

/**
 * Natural-language matching: every concept of the parsed query scores each asset in [0, 1], and an
 * asset's rank is the mean over the concepts weighted by CONCEPT_WEIGHT (an asset matching none is
 * no match):
 * - an object: the detector's confidence for its label × the vocabulary relation's weight
 *   (RELATION_WEIGHT) × how well the count fits (1 when it does; 0.5 when more were seen, 0.25 when
 *   fewer: "two dogs" still finds one dog, lower);
 * - a colour: its share of the image, counting fully from COLOUR_FULL_SHARE on (labels/aggregate.ts);
 * - faces: 1 when faces were found (and, with a number, scaled like an object's count);
 * - as text, every concept also matches the asset's search document (name and tags, description and
 *   the image model's class words, metadata values, extracted text): min(1, 2 · ts_rank_cd
 *   normalised), so a word in the name counts fully and one in OCR text about a fifth. The labelling
 *   step's labels are not in that document (store.ts), so "dog" reads only the assets whose text
 *   says dog there. A concept takes its best score.
 * - a described word (a describer's sentence, labels/store.ts): every concept's word, and an object's
 *   labels (× their relation's weight), stemmed by PostgreSQL's English configuration, against the
 *   description's words: DESCRIPTION_WORD_SCORE each, no counts;
 * Label scores come from asset_labels (one row per asset and term, indexed by project and term).
 */
export const NATURAL_SEARCH = `WITH label_terms AS (
    SELECT * FROM unnest($2::int[], $3::text[], $4::float8[], $5::int[], $6::boolean[]) AS t(ci, term, factor, wanted, at_least)
  ), text_terms AS (
    SELECT ci, CASE WHEN phrase THEN phraseto_tsquery('english'::regconfig, q) || phraseto_tsquery('simple'::regconfig, q)
                    ELSE plainto_tsquery('english'::regconfig, q) || plainto_tsquery('simple'::regconfig, q) END AS tsq
      FROM unnest($7::int[], $8::text[], $9::boolean[]) AS t(ci, q, phrase)
  ), word_terms AS (
    SELECT ci, 'word:' || lexeme AS term, max(factor) AS factor
      FROM unnest($20::int[], $21::text[], $22::float8[]) AS t(ci, q, factor),
           unnest(tsvector_to_array(to_tsvector('english'::regconfig, q))) AS lexeme
     GROUP BY ci, lexeme
  ), hits AS (
    SELECT l.asset_id, l.created_at, t.ci, l.score * t.factor * CASE
             WHEN t.wanted IS NULL OR l.count = t.wanted OR (t.at_least AND l.count > t.wanted) THEN 1
             WHEN l.count > t.wanted THEN 0.5 ELSE 0.25 END AS s
      FROM label_terms t JOIN asset_labels l ON l.project_id = $1::uuid AND l.term = t.term
    UNION ALL
    SELECT l.asset_id, l.created_at, w.ci, l.score * w.factor
      FROM word_terms w JOIN asset_labels l ON l.project_id = $1::uuid AND l.term = w.term
    UNION ALL
    SELECT a.id, a.created_at, t.ci, least(1, 2 * ts_rank_cd(a.search_vector, t.tsq, 32))
      FROM text_terms t JOIN assets a ON a.project_id = $1::uuid AND a.search_vector @@ t.tsq
  ), scored AS (
    SELECT asset_id AS id, created_at, sum(s * ($18::float8[])[ci + 1]) / $11::float8 AS rank
      FROM (SELECT asset_id, created_at, ci, max(s) AS s FROM hits GROUP BY asset_id, created_at, ci) per_concept
     GROUP BY asset_id, created_at
  ), matches AS (
    SELECT id, rank, created_at FROM scored WHERE NOT $19::boolean
    UNION ALL
    SELECT a.id, s.rank, s.created_at
      FROM scored s JOIN assets a ON a.id = s.id
     WHERE $19::boolean
       AND ($12::asset_type IS NULL OR a.type = $12::asset_type)
       AND ($13::asset_status IS NULL OR a.status = $13::asset_status)
       AND ($14::uuid IS NULL OR a.folder_id = $14::uuid)
       AND ($15::boolean OR a.parent_id IS NULL)
       AND ($10::text IS NULL OR NOT a.search_vector @@ (websearch_to_tsquery('english'::regconfig, $10) || websearch_to_tsquery('simple'::regconfig, $10)))
  )
  SELECT t.total, p.id::text AS id, p.rank::float8 AS rank
    FROM (SELECT count(*) AS total FROM matches) t
    LEFT JOIN LATERAL (SELECT id, rank, created_at FROM matches ORDER BY rank DESC, created_at DESC, id ASC LIMIT $16::int OFFSET $17::int) p ON true
   ORDER BY p.rank DESC, p.created_at DESC, p.id ASC`;

/** A colour qualifies the picture ("red cat" is about a cat): it counts half as much as a thing. */
export const CONCEPT_WEIGHT: Record<Concept["kind"], number> = { object: 1, faces: 1, text: 1, colour: 0.5 };

export interface NaturalFilters {
  type: string | null;
  status: string | null;
  folderId: string | null;
  includeChildren: boolean;
}

export interface RankedId {
  id: string;
  rank: number;
}

export async function naturalSearch(
  projectId: string,
  parsed: ParsedQuery,
  filters: NaturalFilters,
  page: { limit: number; offset: number },
): Promise<{ total: number; page: RankedId[] }> {
  const concepts = parsed.concepts;
  if (concepts.length === 0) return { total: 0, page: [] };
  const label = { ci: [] as number[], term: [] as string[], factor: [] as number[], wanted: [] as (number | null)[], atLeast: [] as boolean[] };
  const text = { ci: [] as number[], q: [] as string[], phrase: [] as boolean[] };
  const word = { ci: [] as number[], q: [] as string[], factor: [] as number[] };
  const addWord = (ci: number, q: string, factor: number) => {
    word.ci.push(ci);
    word.q.push(q);
    word.factor.push(factor);
  };
  concepts.forEach((concept, ci) => {
    const addLabel = (term: string, factor: number, count: { n: number; atLeast: boolean } | null) => {
      label.ci.push(ci);
      label.term.push(term);
      label.factor.push(factor);
      label.wanted.push(count?.n ?? null);
      label.atLeast.push(count?.atLeast ?? false);
    };
    if (concept.kind === "object") for (const l of concept.labels) addLabel(`object:${l}`, RELATION_WEIGHT[concept.relation], concept.count);
    addWord(ci, concept.word, 1);
    if (concept.kind === "object") for (const l of concept.labels) addWord(ci, l, RELATION_WEIGHT[concept.relation]);
    if (concept.kind === "colour") addLabel(`colour:${concept.colour}`, 1, null);
    if (concept.kind === "faces") addLabel("face", 1, concept.count);
    text.ci.push(ci);
    text.q.push(concept.word);
    text.phrase.push(concept.kind === "text" && concept.phrase);
  });
  const weights = concepts.map((c) => CONCEPT_WEIGHT[c.kind]);
  const excluded = parsed.excluded.length > 0 ? parsed.excluded.join(" or ") : null;
  const { rows } = await sqlPool().query<{ total: string; id: string | null; rank: number | null }>(NATURAL_SEARCH, [
    projectId,
    label.ci,
    label.term,
    label.factor,
    label.wanted,
    label.atLeast,
    text.ci,
    text.q,
    text.phrase,
    excluded,
    weights.reduce((a, b) => a + b, 0),
    filters.type,
    filters.status,
    filters.folderId,
    filters.includeChildren,
    page.limit,
    page.offset,
    weights,
    filters.type !== null || filters.status !== null || filters.folderId !== null || !filters.includeChildren || excluded !== null,
    word.ci,
    word.q,
    word.factor,
  ]);
  const total = Number(rows[0]?.total ?? 0);
  return { total, page: rows.filter((r): r is { total: string; id: string; rank: number } => r.id !== null) };
}
