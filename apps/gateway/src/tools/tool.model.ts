import { Field, Float, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import type { ImageDescription } from '@toolgate/planner';
import type { PluginView, ToolVersionView, ToolView } from '@toolgate/registry';
import { ToolVersionState } from '@toolgate/registry';
import type { RetrievedTool } from '@toolgate/retrieval';
import { GraphQLJSON } from 'graphql-type-json';
import type { ConsideredTool } from '../use-cases/candidate-finder.service';
import type { SearchFunnelReport } from '../use-cases/search-funnel.use-case';

export enum RiskLevel {
  read = 'read',
  write = 'write',
  destructive = 'destructive',
}
registerEnumType(RiskLevel, { name: 'Risk', description: 'What a tool can do to the world: read < write < destructive.' });
registerEnumType(ToolVersionState, { name: 'ToolVersionState' });

@ObjectType()
export class ToolLimits {
  @Field(() => Int) timeoutMs!: number;
  @Field(() => Int) maxConcurrency!: number;
  @Field(() => Int) retries!: number;
  @Field() idempotent!: boolean;
}

@ObjectType({ description: 'Why the integrity scan quarantined a descriptor: where, which rule, and what (never quoting the text).' })
export class IntegrityFinding {
  @Field({ description: 'JSON pointer into the descriptor.' }) path!: string;
  @Field({ description: 'e.g. hidden-zero-width, ignore-instructions.' }) rule!: string;
  @Field() message!: string;
}

@ObjectType()
export class ToolVersion {
  @Field() version!: string;
  @Field(() => ToolVersionState) state!: ToolVersionState;
  @Field(() => String, { nullable: true, description: 'Why the system set this state, e.g. a descriptor changed without a version bump.' })
  stateReason!: string | null;
  @Field({ description: 'sha256 of the canonical descriptor, pinned when the version was first registered or when an admin approved it.' })
  descriptorHash!: string;
  @Field() packageName!: string;
  @Field({ description: 'The version code is loaded in this server and can run.' }) loaded!: boolean;
  @Field(() => String, { nullable: true, description: 'Hash of a changed descriptor loaded for this version, awaiting approveToolVersion.' })
  pendingDescriptorHash!: string | null;
  @Field(() => [IntegrityFinding], { description: 'What the integrity scan found in the newest loaded descriptor (a QUARANTINED version shows why).' })
  integrityFindings!: IntegrityFinding[];
  @Field(() => String, { nullable: true, description: 'tenant/subject of the admin who approved the pinned hash; null when pinned at first registration.' })
  approvedBy!: string | null;
  @Field(() => Date, { nullable: true }) approvedAt!: Date | null;
  @Field() createdAt!: Date;

  static from(v: ToolVersionView): ToolVersion {
    return {
      version: v.version,
      state: v.state,
      stateReason: v.stateReason,
      descriptorHash: v.descriptorHash,
      packageName: v.packageName,
      loaded: v.loaded,
      pendingDescriptorHash: v.pendingDescriptorHash,
      integrityFindings: v.integrityFindings,
      approvedBy: v.approvedBy,
      approvedAt: v.approvedAt === null ? null : new Date(v.approvedAt),
      createdAt: v.createdAt,
    };
  }
}

@ObjectType({ description: 'A tool as the caller sees it: the descriptor of its active version (or newest, for admins) and all versions.' })
export class Tool {
  @Field({ description: 'namespace/name' }) id!: string;
  @Field() namespace!: string;
  @Field() name!: string;
  @Field() title!: string;
  @Field() description!: string;
  @Field(() => [String]) category!: string[];
  @Field(() => [String]) tags!: string[];
  @Field(() => RiskLevel) risk!: RiskLevel;
  @Field(() => [String]) scopes!: string[];
  @Field() requiresApproval!: boolean;
  @Field() execution!: string;
  @Field(() => GraphQLJSON) inputSchema!: unknown;
  @Field(() => GraphQLJSON) outputSchema!: unknown;
  @Field(() => GraphQLJSON) examples!: unknown;
  @Field(() => ToolLimits) limits!: ToolLimits;
  @Field(() => String, { nullable: true }) fallback!: string | null;
  @Field(() => String, { nullable: true, description: 'The version a call without @version gets.' }) activeVersion!: string | null;
  @Field(() => [ToolVersion], { complexity: 5 }) versions!: ToolVersion[];

  static from(view: ToolView): Tool {
    const shown = view.active ?? view.versions[0];
    const d = shown.descriptor;
    return {
      id: view.id,
      namespace: view.namespace,
      name: view.name,
      title: d.title,
      description: d.description,
      category: d.category,
      tags: d.tags,
      risk: d.permissions.risk as RiskLevel,
      scopes: d.permissions.scopes,
      requiresApproval: d.permissions.requiresApproval === true,
      execution: d.execution,
      inputSchema: d.inputSchema,
      outputSchema: d.outputSchema,
      examples: d.examples,
      limits: d.limits,
      fallback: d.fallback ?? null,
      activeVersion: view.active?.version ?? null,
      versions: view.versions.map(ToolVersion.from),
    };
  }
}

@ObjectType({ description: 'Text an image of the query contributed: it was appended to the query before retrieval.' })
export class ImageText {
  @Field(() => Int, { description: 'Position of the image in the input (0-based).' }) index!: number;
  @Field(() => String, { nullable: true }) name!: string | null;
  @Field({ description: '`ocr` (local tesseract) or `vision` (a model).' }) source!: string;
  @Field() mimeType!: string;
  @Field() text!: string;

  static from(description: ImageDescription, index: number): ImageText {
    return { index, name: description.name ?? null, source: description.source, mimeType: description.mimeType, text: description.text };
  }
}

/** A hit's rank and score at each stage of the funnel, as every explanation shows them. */
const stageScores = (hit: RetrievedTool) => ({
  rank: hit.rank,
  bm25Rank: hit.lexical?.rank ?? null,
  bm25Score: hit.lexical?.score ?? null,
  vectorRank: hit.semantic?.rank ?? null,
  vectorScore: hit.semantic?.score ?? null,
  fusedScore: hit.fused,
  rerankRank: hit.rerank?.rank ?? null,
  rerankScore: hit.rerank?.score ?? null,
  reranker: hit.rerank ? (hit.rerank.fallback ? `${hit.rerank.reranker}: ${hit.rerank.fallback}` : hit.rerank.reranker) : null,
  companionOf: hit.companion?.of ?? null,
});

const COMPANION_OF_DESCRIPTION =
  "Set when the tool was ranked beside a stronger match it is used with: that tool's id (declared in its manifest's `companions`, or learned from requests that used both).";

@ObjectType({ description: 'Why a tool matched: its rank and score at each stage of the funnel.' })
export class MatchExplanation {
  @Field({ description: 'Human summary of why the tool matched.' }) summary!: string;
  @Field(() => Int) rank!: number;
  @Field(() => Int, { nullable: true, description: 'Rank on the lexical (BM25) side; null when it did not match lexically.' }) bm25Rank!: number | null;
  @Field(() => Float, { nullable: true }) bm25Score!: number | null;
  @Field(() => Int, { nullable: true, description: 'Rank on the semantic (vector) side.' }) vectorRank!: number | null;
  @Field(() => Float, { nullable: true, description: "Cosine similarity of the closest of the tool's vectors." }) vectorScore!: number | null;
  @Field(() => Float, { description: 'Reciprocal rank fusion score.' }) fusedScore!: number;
  @Field(() => Int, { nullable: true, description: "The reranker's rank; null without a reranker or past its depth." }) rerankRank!: number | null;
  @Field(() => Float, { nullable: true, description: "The reranker's score; null without a reranker or past its depth." }) rerankScore!: number | null;
  @Field(() => String, { nullable: true, description: 'The reranker, or why the fused order was kept.' }) reranker!: string | null;
  @Field(() => String, { nullable: true, description: COMPANION_OF_DESCRIPTION }) companionOf!: string | null;
  @Field(() => Float, {
    description:
      "The score the hits are sorted by (the match's `score`): the rerank score (for a request split into clauses, the tool's best standing over the request and its clauses), or the fused score relative to the best without a reranker.",
  })
  rankingScore!: number;
  @Field(() => [String]) matchedTerms!: string[];
  @Field(() => [ImageText], { description: 'Text each image of the query contributed, in input order (empty without images).' }) images!: ImageText[];
  @Field(() => String, {
    nullable: true,
    description: 'Set while the index warms up: the hit was found by BM25 and the vectors there were, e.g. `vectors 12/22` of the tools you may discover; null once every vector is in.',
  })
  degraded!: string | null;

  static from(hit: RetrievedTool, images: ImageDescription[] = []): MatchExplanation {
    const parts = [
      hit.lexical ? `BM25 rank ${hit.lexical.rank} (${hit.lexical.score.toFixed(2)}; matched ${hit.lexical.matchedTerms.join(', ')})` : 'no lexical match',
      hit.semantic ? `vector rank ${hit.semantic.rank} (cosine ${hit.semantic.score.toFixed(3)})` : 'not among the nearest vectors',
    ];
    if (images.length > 0) parts.push(`query included text from ${images.length} image${images.length === 1 ? '' : 's'}`);
    if (hit.degraded) parts.push(`degraded: ${hit.degraded}`);
    if (hit.companion) parts.push(hit.companion.declared ? `declared companion of ${hit.companion.of}` : `used with ${hit.companion.of} in ${Math.round(100 * hit.companion.share)}% of its requests`);
    const rerank = hit.rerank?.score === undefined ? '' : `; rerank rank ${hit.rerank.rank} (${hit.rerank.score.toFixed(3)})`;
    return {
      summary: `${parts.join('; ')}; fused ${hit.fused.toFixed(4)}${rerank}; ranking score ${hit.score.toFixed(3)}`,
      ...stageScores(hit),
      rankingScore: hit.score,
      matchedTerms: hit.lexical?.matchedTerms ?? [],
      images: images.map(ImageText.from),
      degraded: hit.degraded ?? null,
    };
  }
}

export enum CandidateVerdictKind {
  KEPT = 'KEPT',
  BELOW_CUTOFF = 'BELOW_CUTOFF',
  UNHEALTHY = 'UNHEALTHY',
  DUPLICATE = 'DUPLICATE',
}
registerEnumType(CandidateVerdictKind, {
  name: 'CandidateVerdict',
  description: 'KEPT: among the top k; BELOW_CUTOFF: ranked past k; UNHEALTHY: its version failed its health check; DUPLICATE: another version of the tool ranked higher.',
});

@ObjectType({ description: 'One candidate of the retrieval funnel: its rank and score at each stage, and why it was kept or dropped.' })
export class FunnelCandidate {
  @Field() toolId!: string;
  @Field() version!: string;
  @Field() title!: string;
  @Field() kept!: boolean;
  @Field(() => CandidateVerdictKind) verdict!: CandidateVerdictKind;
  @Field() reason!: string;
  @Field(() => Int, { description: 'Rank after fusion and rerank, before the cut.' }) rank!: number;
  @Field(() => Int, { nullable: true }) bm25Rank!: number | null;
  @Field(() => Float, { nullable: true }) bm25Score!: number | null;
  @Field(() => Int, { nullable: true }) vectorRank!: number | null;
  @Field(() => Float, { nullable: true }) vectorScore!: number | null;
  @Field(() => Float) fusedScore!: number;
  @Field(() => Int, { nullable: true, description: "The reranker's rank; null without a reranker or past its depth." }) rerankRank!: number | null;
  @Field(() => Float, { nullable: true }) rerankScore!: number | null;
  @Field(() => Float, { description: "The score the final order sorts by, as a match's `score`." }) rankingScore!: number;
  @Field(() => String, { nullable: true, description: 'The reranker, or why the fused order was kept.' }) reranker!: string | null;
  @Field(() => [String]) matchedTerms!: string[];
  @Field(() => String, { nullable: true, description: 'For a request split into clauses: the clause that found it.' }) clause!: string | null;

  static from({ tool, version, hit, verdict, reason }: ConsideredTool): FunnelCandidate {
    return {
      toolId: tool.id,
      version: version.version,
      title: version.descriptor.title,
      kept: verdict === 'KEPT',
      verdict: verdict as CandidateVerdictKind,
      reason,
      ...stageScores(hit),
      rankingScore: hit.score,
      matchedTerms: hit.lexical?.matchedTerms ?? [],
      clause: hit.clause?.text ?? null,
    };
  }
}

@ObjectType({ description: 'A search as the funnel saw it: the candidates around the cut, best first, each with its verdict.' })
export class SearchFunnel {
  @Field({ description: 'The text searched: the query and what its images contributed.' }) query!: string;
  @Field(() => Int) k!: number;
  @Field(() => [ImageText]) images!: ImageText[];
  @Field(() => String, { nullable: true, description: 'Set while the index warms up, as on MatchExplanation.' }) degraded!: string | null;
  @Field(() => [FunnelCandidate]) candidates!: FunnelCandidate[];

  static from(report: SearchFunnelReport): SearchFunnel {
    return {
      query: report.query,
      k: report.k,
      images: report.images.map(ImageText.from),
      degraded: report.candidates.find((c) => c.hit.degraded)?.hit.degraded ?? null,
      candidates: report.candidates.map(FunnelCandidate.from),
    };
  }
}

@ObjectType()
export class ToolMatch {
  @Field(() => Tool) tool!: Tool;
  @Field(() => Float) score!: number;
  @Field(() => MatchExplanation) explanation!: MatchExplanation;
}

@ObjectType()
export class ErrorDetail {
  @Field() path!: string;
  @Field() message!: string;
}

@ObjectType()
export class PluginError {
  @Field() code!: string;
  @Field() message!: string;
  @Field(() => [ErrorDetail]) details!: ErrorDetail[];
}

@ObjectType()
export class Plugin {
  @Field() packageName!: string;
  @Field() version!: string;
  @Field() namespace!: string;
  @Field() path!: string;
  @Field({ description: 'LOADED, FAILED, or MISSING (not found on disk at the last load)' }) status!: string;
  @Field(() => PluginError, { nullable: true }) error!: PluginError | null;
  @Field(() => Int) toolCount!: number;
  @Field(() => String, { nullable: true, description: 'sha256 of the code this version loaded (its package folder, or its install); the workers that run it refuse other code' })
  codeHash!: string | null;
  @Field() updatedAt!: Date;

  static from({ code, ...view }: PluginView): Plugin {
    return { ...view, codeHash: code?.hash ?? null };
  }
}

@ObjectType()
export class PluginLoadReport {
  @Field(() => [Plugin]) loaded!: Plugin[];
  @Field(() => [Plugin]) failed!: Plugin[];
  @Field(() => Int) durationMs!: number;
}

@ObjectType()
export class PrincipalInfo {
  @Field() tenant!: string;
  @Field() subject!: string;
  @Field(() => [String]) roles!: string[];
  @Field() admin!: boolean;
}

@ObjectType()
export class PolicySummary {
  @Field(() => String, { nullable: true }) source!: string | null;
  @Field(() => [String]) roles!: string[];
  @Field(() => Int) apiKeys!: number;
}
