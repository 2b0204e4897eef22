import {
  createAssetEndpoint,
  deleteAssetEndpoint,
  deleteContentEndpoint,
  getAssetEndpoint,
  listAssetsEndpoint,
  listChildrenEndpoint,
  moveAssetEndpoint,
  patchAssetEndpoint,
  retryAssetEndpoint,
  reviewAssetEndpoint,
  searchAssetsEndpoint,
  startMultipartEndpoint,
  uploadAssetEndpoint,
  uploadPartEndpoint,
} from "@/lib/assets/endpoints";
import {
  createFolderEndpoint,
  deleteFolderEndpoint,
  getFolderEndpoint,
  listFoldersEndpoint,
  moveFolderEndpoint,
  renameFolderEndpoint,
} from "@/lib/folders/endpoints";
import { createBatchEndpoint, getBatchEndpoint } from "@/lib/assets/batch/endpoints";
import {
  eventFeedEndpoint,
  markEventReadEndpoint,
  markEventUnreadEndpoint,
  markEventsReadEndpoint,
  unreadCountEndpoint,
} from "@/lib/events/endpoints";
import { ensureLensEndpoint, ensureLensesEndpoint } from "@/lib/lenses/endpoints";
import { createSignedUrlEndpoint } from "@/lib/cdn/endpoints";
import {
  createConnectorEndpoint,
  deleteConnectorEndpoint,
  disableConnectorEndpoint,
  enableConnectorEndpoint,
  getConnectorDeliveryEndpoint,
  getConnectorEndpoint,
  listConnectorDeliveriesEndpoint,
  listConnectorsEndpoint,
  replayConnectorDeliveryEndpoint,
  rotateConnectorSecretEndpoint,
  testConnectorEndpoint,
  updateConnectorEndpoint,
} from "@/lib/connectors/endpoints";
import type { EndpointSpec } from "@/lib/http/endpoint";
import { healthCheckEndpoint, openApiEndpoint } from "@/lib/http/system-endpoints";

/**
 * Every API operation, in the order the OpenAPI document lists them. A new endpoint module's
 * `*Endpoint` exports go here; lib/openapi/document.test.ts fails when an exported `*Endpoint` or a
 * route handler (app/v1/**\/route.ts) has no entry.
 */
export const API_ENDPOINTS: EndpointSpec[] = [
  // System
  healthCheckEndpoint,
  openApiEndpoint,
  // Assets (lib/assets/endpoints.ts)
  createAssetEndpoint,
  uploadAssetEndpoint,
  startMultipartEndpoint,
  uploadPartEndpoint,
  listAssetsEndpoint,
  searchAssetsEndpoint,
  getAssetEndpoint,
  listChildrenEndpoint,
  patchAssetEndpoint,
  moveAssetEndpoint,
  deleteContentEndpoint,
  deleteAssetEndpoint,
  retryAssetEndpoint,
  reviewAssetEndpoint,
  createBatchEndpoint,
  getBatchEndpoint,
  // Folders (lib/folders/endpoints.ts)
  listFoldersEndpoint,
  createFolderEndpoint,
  getFolderEndpoint,
  renameFolderEndpoint,
  deleteFolderEndpoint,
  moveFolderEndpoint,
  // Events (lib/events/endpoints.ts)
  eventFeedEndpoint,
  unreadCountEndpoint,
  markEventReadEndpoint,
  markEventUnreadEndpoint,
  markEventsReadEndpoint,
  // Lenses (lib/lenses/endpoints.ts)
  ensureLensEndpoint,
  ensureLensesEndpoint,
  // Connectors (lib/connectors/endpoints.ts)
  listConnectorsEndpoint,
  createConnectorEndpoint,
  getConnectorEndpoint,
  updateConnectorEndpoint,
  deleteConnectorEndpoint,
  rotateConnectorSecretEndpoint,
  enableConnectorEndpoint,
  disableConnectorEndpoint,
  testConnectorEndpoint,
  listConnectorDeliveriesEndpoint,
  getConnectorDeliveryEndpoint,
  replayConnectorDeliveryEndpoint,
  // Signed CDN URLs (lib/cdn/endpoints.ts)
  createSignedUrlEndpoint,
];
