/** A phone number in E.164 form (+, country code, subscriber number), as the gateway takes it. */
export const E164 = /^\+[1-9]\d{6,14}$/;
/** The class-validator message for a field that is not E.164. */
export const E164_MESSAGE = '$property must be an E.164 phone number such as +14155550100';
