<?php
// The messages a Laravel 8 skeleton ships (resources/lang/en/validation.php), the ones this demo uses.
return [
    'max' => ['string' => 'The :attribute must not be greater than :max characters.'],
    'required' => 'The :attribute field is required.',
    'string' => 'The :attribute must be a string.',
    'unique' => 'The :attribute has already been taken.',
];
