/**
 * `retrystorm check`: static analysis of a retry stack (worst cases, closed-form load multiples,
 * first waits, findings) and importers of real configuration formats (gRPC service config, Envoy
 * route retry_policy, AWS SDK shared config). No I/O: text in, results out.
 */
export { CheckInputError } from './CheckInputError.js';
export { checkExitCode, checkStack, type CheckOptions, type CheckReport, type ExpectedReport, type LayerReport } from './checkStack.js';
export { budgetCap, expectedMultiple, geometricAttempts, type ExpectedLayer, type ExpectedMultiple } from './expectedMultiple.js';
export { AMPLIFICATION_ERROR_AT, FINDING_CODES, findingsOf, hasBudget, layerRetries, LONG_WAIT_MS, type Finding, type FindingCode, type Severity } from './findings.js';
export { FIRST_WAITS, firstWaits, type WaitRange } from './firstWaits.js';
export { describeBackoff, describeBudget, formatCheckReport, formatStormReport } from './formatReport.js';
export { AWS_RETRY_MODES, AWS_SDKS, importAwsConfig, type AwsImportOptions, type AwsSdk } from './importAwsConfig.js';
export { LOST_NOTE_PREFIX, lostNote, lostNotes, type ImportedLayer } from './ImportedLayer.js';
export { ENVOY_DEFAULTS, holdsEnvoyRetryPolicy, importEnvoyRoute, type EnvoyImportOptions } from './importEnvoyRoute.js';
export { GRPC_IMPLS, GRPC_MAX_ATTEMPTS, importGrpcServiceConfig, isGrpcServiceConfig, type GrpcImpl, type GrpcImportOptions } from './importGrpcServiceConfig.js';
export { ENVOY_GATEWAY_DEFAULTS, importEnvoyGateway, type EnvoyGatewayImportOptions } from './importEnvoyGateway.js';
export { GATEWAY_API_DEFAULTS, importGatewayApi, type GatewayApiImportOptions } from './importGatewayApi.js';
export { importIstio, ISTIO_DEFAULTS, type IstioImportOptions } from './importIstio.js';
export { importLinkerd, LINKERD_ANNOTATIONS, LINKERD_DEFAULTS, type LinkerdImportOptions } from './importLinkerd.js';
export { detectMeshImport, importMesh, MESH_FORMATS, type MeshFormat, type MeshImportOptions } from './meshImports.js';
export { AWS_RETRY_ENV, importAwsEnv, readEnvLines, type AwsEnvImportOptions } from './importAwsEnv.js';
export { importIngressNginx, INGRESS_NGINX_DEFAULTS, type IngressNginxImportOptions } from './importIngressNginx.js';
export { importPolly, POLLY_DEFAULTS, type PollyImportOptions } from './importPolly.js';
export { importResilience4j, RESILIENCE4J_DEFAULTS, type Resilience4jImportOptions } from './importResilience4j.js';
export { DEFAULT_EXPORT_NAME, EXPORT_FORMATS, exportNameOf, exportPolicy, policyDifferences, readBack, type ExportFormat, type ExportOptions, type ExportResult } from './exportPolicy.js';
export { loadStacks, type CheckLayer, type CheckStack, type LoadStackOptions } from './loadStack.js';
export { experimentFileJsonSchema, hasStackImports, IMPORT_FORMATS, importSchema, resolveExperimentImports, type ImportFormat, type ImportReader, type ImportSpec, type ResolvedExperimentImports } from './layerImport.js';
export { simulateStorm, stormScenario, type StormOptions, type StormReport, type StormRun } from './simulateStorm.js';
export { ANSWER_CLASSES, attemptsFor, classAnswer, classOutcome, failureClassesOf, FAILURE_CLASS_LABELS, FAILURE_CLASSES, worstCase, type FailureClass, type WorstCase } from './worstCase.js';
