/** Every error code and its status; AppError reads them here, so an unknown code does not compile. */
export type ErrorKind = 'user' | 'operational' | 'unexpected';

export interface CodeSpec {
  status: number;
  /** Other statuses this code may take (AppError's `status` picks). */
  also?: readonly number[] | 'any 4xx';
  kind?: ErrorKind;
  /** OpenAI error `type` on /api/v1; when absent it follows the status. */
  type?: string;
}

export const ERROR_CODES = {
  // 400: the request is wrong.
  bad_request: { status: 400, also: 'any 4xx' }, // Hono's HTTPException keeps its status
  invalid_request: { status: 400 },
  invalid_json: { status: 400 },
  invalid_body: { status: 400 },
  nul_not_allowed: { status: 400, type: 'invalid_request_error' },
  json_too_deep: { status: 400, type: 'invalid_request_error' },
  invalid_email: { status: 400 },
  weak_password: { status: 400 },
  wrong_password: { status: 400 },
  invalid_role: { status: 400 },
  invalid_expiry: { status: 400 },
  invalid_status: { status: 400 },
  invalid_tools: { status: 400 },
  unknown_tool: { status: 400 },
  invalid_tool_name: { status: 400 },
  duplicate_tool_name: { status: 400 },
  invalid_tool_config: { status: 400 },
  invalid_settings: { status: 400 },
  provider_account_invalid: { status: 400 },
  model_invalid: { status: 400 },
  invalid_base_url: { status: 400 },
  base_url_not_public: { status: 400 },
  invalid_provider: { status: 400 },
  invalid_slug: { status: 400 },
  base_url_required: { status: 400 },
  api_key_required: { status: 400 },
  // 400 on /api/v1.
  invalid_model_id: { status: 400, type: 'invalid_request_error' },
  model_not_capable: { status: 400 },
  embeddings_not_supported: { status: 400 },
  // Responses fields with no chat equivalent (SPEC "Responses refusal codes").
  unsupported_responses_field: { status: 400, type: 'invalid_request_error' },
  unsupported_text_field: { status: 400, type: 'invalid_request_error' },
  unsupported_reasoning_field: { status: 400, type: 'invalid_request_error' },
  unsupported_input_item: { status: 400, type: 'invalid_request_error' },
  unsupported_tool: { status: 400, type: 'invalid_request_error' },
  unsupported_tool_field: { status: 400, type: 'invalid_request_error' },
  metadata_not_supported: { status: 400, type: 'invalid_request_error' },
  truncation_not_supported: { status: 400, type: 'invalid_request_error' },
  include_not_supported: { status: 400, type: 'invalid_request_error' },
  previous_response_id_not_supported: { status: 400, type: 'invalid_request_error' },
  response_state_not_supported: { status: 400, type: 'invalid_request_error' },
  store_not_supported: { status: 400, type: 'invalid_request_error' },

  // 401, 403: who is asking.
  unauthorized: { status: 401 },
  invalid_credentials: { status: 401 },
  forbidden: { status: 403 },
  csrf_failed: { status: 403 },
  origin_refused: { status: 403 },
  not_a_member: { status: 403, also: [400] }, // 400 when a body field names a non-member
  not_operator: { status: 403, also: [400] }, // 400 from the workbench's token form
  higher_role: { status: 403 },
  owner_invite_forbidden: { status: 403 },
  invitation_required: { status: 403 },
  invalid_invitation: { status: 403 },
  reset_link_invalid: { status: 403 },

  // 404 and other request-level refusals.
  not_found: { status: 404 },
  model_not_found: { status: 404 },
  method_not_allowed: { status: 405 },
  request_timeout: { status: 408 },
  payload_too_large: { status: 413 },
  unsupported_media_type: { status: 415 },
  misdirected_request: { status: 421 },

  // 409: the state does not allow it.
  email_taken: { status: 409 },
  already_member: { status: 409 },
  invitation_closed: { status: 409 },
  last_owner: { status: 409 },
  slug_taken: { status: 409 },
  local_account_fixed: { status: 409 },
  publish_conflict: { status: 409 },
  approval_decided: { status: 409 },
  run_not_waiting: { status: 409 },

  // 429: too many.
  rate_limited: { status: 429 },
  rate_limit_exceeded: { status: 429, type: 'rate_limit_error' },
  too_many_attempts: { status: 429 },

  // 5xx: ours.
  internal_error: { status: 500, kind: 'unexpected' },
  registration_misconfigured: { status: 500 },
  auth_busy: { status: 503 },
  store_busy: { status: 503 },
  store_unavailable: { status: 503 },
  catalogue_unavailable: { status: 502, type: 'server_error' },

  // An upstream failed; its own 4xx codes are relayed as-is.
  upstream_error: { status: 502, also: 'any 4xx', type: 'server_error' }, // a 4xx without a code
  upstream_auth_failed: { status: 502, type: 'server_error' },
  upstream_unavailable: { status: 502, type: 'server_error' },
  upstream_connection_reset: { status: 502, type: 'server_error' },
  upstream_address_refused: { status: 502, type: 'server_error' },
  upstream_bad_response: { status: 502, type: 'server_error' },
  upstream_timeout: { status: 504, type: 'server_error' },
  client_closed_request: { status: 499, type: 'invalid_request_error' },
} as const satisfies Record<string, CodeSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes whose status is `S`, for helpers such as badRequest. */
export type CodeWithStatus<S extends number> = { [K in ErrorCode]: (typeof ERROR_CODES)[K]['status'] extends S ? K : never }[ErrorCode];
