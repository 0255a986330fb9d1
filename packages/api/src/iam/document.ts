/** A value of a policy: literal, or a CloudFormation reference to a parameter where a template fills it in. */
export type IamValue = string | { Ref: string };

/** A statement of an IAM policy, as AWS reads it: a permission policy (Resource) or a trust policy (Principal). */
export interface IamStatement {
  Sid: string;
  Effect: 'Allow';
  Principal?: { AWS: IamValue } | { Federated: string } | { Service: string };
  Action: string[];
  Resource?: string | string[];
  Condition?: Record<string, Record<string, IamValue>>;
}

/** An IAM policy document (the 2012-10-17 grammar, the only one with policy variables and conditions keys). */
export interface IamPolicy {
  Version: '2012-10-17';
  Statement: IamStatement[];
}

export const iamPolicy = (...statements: IamStatement[]): IamPolicy => ({
  Version: '2012-10-17',
  Statement: statements,
});

/** Every action a policy allows, in statement order. */
export const allowedActions = (policy: IamPolicy): string[] => policy.Statement.flatMap(({ Action }) => Action);
