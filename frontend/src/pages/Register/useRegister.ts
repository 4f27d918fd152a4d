import { isReservedUsername, Messages, type RegisterRequest } from '@studio/contracts';
import { useCallback, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { apiPost, errorText, NO_RESPONSE, type ApiResult } from '../../api/client';
import { Paths } from '../../paths';
import { hasRegistered, markRegistered } from '../../session/storage';
import { useToast } from '../../ui/toast';

export interface RegisterFormValues {
  username?: string;
  email?: string;
  password?: string;
  adult?: boolean;
}

export function toRegisterRequest(values: RegisterFormValues): RegisterRequest {
  return {
    username: (values.username ?? '').trim(),
    email: (values.email ?? '').trim(),
    password: values.password ?? '',
    adult: values.adult === true,
  };
}

/**
 * The client-side checks of spec section 5, the 18+ gate and the studio's reserved names (the
 * server's own check, isReservedUsername in libs/contracts); null when the form may be sent.
 */
export function registerProblem(request: RegisterRequest): string | null {
  if (!request.email || !request.username || !request.password) return Messages.missingFields;
  if (hasRegistered()) return Messages.maxAccounts;
  if (!request.adult) return Messages.mustBeAdult;
  if (isReservedUsername(request.username)) return Messages.usernameReservedName;
  return null;
}

/** The toast for a refused registration (spec section 8); null when nothing should show. */
export function registerFailureText(result: ApiResult<unknown>): string | null {
  if (result.status === NO_RESPONSE) return null;
  if (result.status === 409) return Messages.accountExists;
  if (result.status >= 500) return Messages.serverError;
  // Other refusals carry a clear message (bad user name, weak password, rate limit ...).
  return errorText(result);
}

export function useRegister() {
  const toast = useToast();
  const navigate = useNavigate();
  const [submitting, setSubmitting] = useState(false);

  const register = useCallback(
    async (values: RegisterFormValues) => {
      const request = toRegisterRequest(values);
      const problem = registerProblem(request);
      if (problem) {
        toast.error(problem);
        return;
      }
      setSubmitting(true);
      const result = await apiPost<string>('/register', request);
      setSubmitting(false);
      if (result.ok) {
        markRegistered();
        toast.success(Messages.registered);
        navigate(Paths.login);
        return;
      }
      const failure = registerFailureText(result);
      if (failure) toast.error(failure);
    },
    [navigate, toast],
  );

  return { register, submitting };
}
