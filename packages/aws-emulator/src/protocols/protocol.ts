import type { AuthFailureKind } from '../sigv4/authenticate.js';
import { ApiError } from './api-error.js';
import { element, elements, type Xml } from './xml.js';

/** How one AWS protocol writes results and errors, and names the failures every service shares. */
export interface Protocol {
  readonly contentType: string;
  success(action: string, result: Xml | object, requestId: string): string;
  error(error: ApiError, requestId: string): string;
  authError(kind: AuthFailureKind, message: string): ApiError;
  unknownAction(action: string): ApiError;
}

type AuthCodes = Record<AuthFailureKind, [code: string, status: number, message?: string]>;

function authErrors(codes: AuthCodes) {
  return (kind: AuthFailureKind, message: string) => {
    const [code, status, fixedMessage] = codes[kind];
    return new ApiError(code, fixedMessage ?? message, status);
  };
}

/** STS's query protocol: form-encoded input, `<XResponse><XResult>` output, `<ErrorResponse>` errors. */
export function awsQuery(namespace: string, version: string): Protocol {
  return {
    contentType: 'text/xml',
    success: (action, result, requestId) =>
      `<${action}Response xmlns="${namespace}">${element(`${action}Result`, result as Xml).text}` +
      `<ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></${action}Response>\n`,
    error: (error, requestId) =>
      `<ErrorResponse xmlns="${namespace}">` +
      elements(
        element('Error', [
          element('Type', error.status >= 500 ? 'Receiver' : 'Sender'),
          element('Code', error.code),
          element('Message', error.message),
        ]),
        element('RequestId', requestId),
      ).text +
      `</ErrorResponse>\n`,
    authError: authErrors({
      missing: ['MissingAuthenticationToken', 403],
      incomplete: ['IncompleteSignature', 400],
      unknownKey: ['InvalidClientTokenId', 403],
      invalidToken: ['InvalidClientTokenId', 403],
      expiredToken: ['ExpiredToken', 403],
      signature: ['SignatureDoesNotMatch', 403],
      signatureExpired: ['SignatureDoesNotMatch', 403],
    }),
    unknownAction: (action) =>
      new ApiError('InvalidAction', `Could not find operation ${action} for version ${version}`),
  };
}

/** EC2's query protocol: results directly in `<XResponse>` with a `requestId`, errors in `<Response><Errors>`. */
export function ec2Query(namespace: string): Protocol {
  const authFailure = 'AWS was not able to validate the provided access credentials';
  return {
    contentType: 'text/xml;charset=UTF-8',
    success: (action, result, requestId) =>
      `<?xml version="1.0" encoding="UTF-8"?>\n<${action}Response xmlns="${namespace}">` +
      `<requestId>${requestId}</requestId>${(result as Xml).text}</${action}Response>`,
    error: (error, requestId) =>
      `<?xml version="1.0" encoding="UTF-8"?>\n<Response>` +
      element('Errors', [element('Error', [element('Code', error.code), element('Message', error.message)])]).text +
      `<RequestID>${requestId}</RequestID></Response>`,
    authError: authErrors({
      missing: ['MissingAuthenticationToken', 401, 'Request is missing Authentication Token'],
      incomplete: ['IncompleteSignature', 400],
      unknownKey: ['AuthFailure', 401, authFailure],
      invalidToken: ['AuthFailure', 401, authFailure],
      expiredToken: ['RequestExpired', 400, 'Request has expired.'],
      signature: ['AuthFailure', 401, authFailure],
      signatureExpired: ['RequestExpired', 400, 'Request has expired.'],
    }),
    unknownAction: (action) => new ApiError('InvalidAction', `The action ${action} is not valid for this web service.`),
  };
}

/** JSON 1.1 (the tagging API): JSON in and out, errors as `{"__type", "message"}`. */
export function awsJson1_1(): Protocol {
  return {
    contentType: 'application/x-amz-json-1.1',
    success: (_action, result) => JSON.stringify(result),
    error: (error) => JSON.stringify({ __type: error.code, message: error.message }),
    authError: authErrors({
      missing: ['MissingAuthenticationTokenException', 403, 'Missing Authentication Token'],
      incomplete: ['IncompleteSignatureException', 400],
      unknownKey: ['UnrecognizedClientException', 400],
      invalidToken: ['UnrecognizedClientException', 400],
      expiredToken: ['ExpiredTokenException', 400],
      signature: ['InvalidSignatureException', 400],
      signatureExpired: ['InvalidSignatureException', 400],
    }),
    unknownAction: () => new ApiError('UnknownOperationException', '', 400),
  };
}
