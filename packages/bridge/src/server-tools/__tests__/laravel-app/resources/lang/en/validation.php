<?php
// The messages a Laravel 8 skeleton ships (resources/lang/en/validation.php), the ones this app uses.
return [
    'digits' => 'The :attribute must be :digits digits.',
    'min' => ['string' => 'The :attribute must be at least :min characters.'],
    'not_in' => 'The selected :attribute is invalid.',
    'required' => 'The :attribute field is required.',
    'string' => 'The :attribute must be a string.',
];
