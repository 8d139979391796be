// Every operation has an operationId written camelCase, verb first (createPatient, getPatient).
const CAMEL_CASE = /^[a-z][a-zA-Z0-9]*$/;

export default function operationIdCamelCase(operation, _options, context) {
  const { operationId } = operation;
  if (typeof operationId !== 'string' || operationId.length === 0) {
    return [{ message: 'Operation must have an operationId.', path: context.path }];
  }
  if (!CAMEL_CASE.test(operationId)) {
    return [
      {
        message: `operationId "${operationId}" must be camelCase verb+noun (for example createPatient).`,
        path: [...context.path, 'operationId'],
      },
    ];
  }
  return [];
}
